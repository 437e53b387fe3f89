#pragma once
// Shared by the pty job's tests: runs a PtyJob on a real PTY to its end in one process and keeps
// every event it reported, with the checks every run must pass (time order, UTF-8 output, the
// lock-down hook called, the root gone).

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <kj/async-io.h>

#include "evidence/utf.h"
#include "helpers/pty/pty-job.h"

namespace rea::helper::testing {

using Event = PtyJobEvent;

struct Recorder final : public PtyJobSink {
  std::vector<Event> events;
  void event(Event&& event) override { events.push_back(kj::mv(event)); }
};

struct Run {
  pid_t rootPid = 0;
  uint64_t spawnedAtNs = 0;
  std::vector<Event> events;
  PtyJobSummary summary;

  std::string output() const {
    std::string all;
    for (auto& e : events) {
      if (e.kind == Event::Kind::OUTPUT) all += e.output;
    }
    return all;
  }
  size_t chunks() const {
    size_t n = 0;
    for (auto& e : events)
      n += e.kind == Event::Kind::OUTPUT;
    return n;
  }
  const Event& exit() const {
    for (auto& e : events) {
      if (e.kind == Event::Kind::EXITED) return e;
    }
    ADD_FAILURE() << "no exit event";
    static Event none{Event::Kind::EXITED, 0};
    return none;
  }
  std::vector<const Event*> of(Event::Kind kind) const {
    std::vector<const Event*> list;
    for (auto& e : events) {
      if (e.kind == kind) list.push_back(&e);
    }
    return list;
  }
  std::vector<Event> dispatches() const {
    std::vector<Event> result;
    for (auto& e : events) {
      if (e.kind == Event::Kind::DISPATCHED) result.push_back(e);
    }
    return result;
  }
};

inline Run run(PtyJobConfig config, bool waitForEof = true) {
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  bool lockedDown = false;
  auto job = PtyJob::start(io, kj::mv(config), recorder, [&]() { lockedDown = true; });
  EXPECT_TRUE(lockedDown);
  Run result;
  result.rootPid = job->rootPid();
  result.spawnedAtNs = job->spawnedAtNs();
  job->whenExited().exclusiveJoin(job->whenFailed()).wait(io.waitScope);
  if (waitForEof) job->whenDrained().wait(io.waitScope);
  result.summary = job->finish().wait(io.waitScope);
  job = nullptr;
  result.events = kj::mv(recorder.events);

  uint64_t last = 0;
  for (auto& e : result.events) {
    EXPECT_GE(e.atNs, last) << "events go back in time";
    last = e.atNs;
    if (e.kind == Event::Kind::OUTPUT) {
      EXPECT_FALSE(e.output.empty());
      EXPECT_TRUE(evidence::isValidUtf8(e.output));
    }
  }
  EXPECT_EQ(::kill(result.rootPid, 0), -1) << "the root survived its job";
  return result;
}
// Starts the job, waits for the root's exit (and, with `waitForEof`, the drain to EOF), finishes
// it and returns what it reported.

}  // namespace rea::helper::testing
