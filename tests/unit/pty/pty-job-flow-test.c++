// The pty job's flow control towards its sink (PtyJobSink::wantsMore): while the sink wants no
// more, chunks wait raw and the target is not slowed; once it does, everything follows in order,
// and the exit still comes after the output written before it (A15). Real PTYs, real programs.
#include <gtest/gtest.h>
#include <kj/async-io.h>

#include <string>
#include <vector>

#include "helpers/pty/pty-job.h"

namespace rea::helper {
namespace {

using Event = PtyJobEvent;

struct GatedSink final : public PtyJobSink {
  bool open = false;
  kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> waiter;
  int asked = 0;  // whenWantsMore() calls
  std::vector<Event> events;

  void event(Event&& event) override { events.push_back(kj::mv(event)); }
  bool wantsMore() override { return open; }
  kj::Promise<void> whenWantsMore() override {
    ++asked;
    if (open) return kj::READY_NOW;
    auto paf = kj::newPromiseAndFulfiller<void>();
    waiter = kj::mv(paf.fulfiller);
    return kj::mv(paf.promise);
  }
  void openUp() {
    open = true;
    KJ_IF_MAYBE (w, waiter) {
      (*w)->fulfill();
    }
    waiter = nullptr;
  }
};

TEST(PtyJobFlow, ASinkThatWantsNoMoreHoldsTheOutputBackWithoutLosingAnyOfIt) {
  PtyJobConfig config;
  config.executable = "/usr/bin/seq";
  config.arguments = {"1", "100000"};  // 588,895 bytes through the PTY: several reads
  config.workingDirectory = "/";
  config.environment = {"PATH=/usr/bin:/bin"};
  config.timeoutMs = 60000;
  config.idleTimeoutMs = 60000;
  auto io = kj::setupAsyncIo();
  GatedSink sink;
  auto job = PtyJob::start(io, kj::mv(config), sink, []() {});
  auto exited = job->whenExited();
  // The drain thread reads to EOF whatever the sink says: the target is never held back.
  job->whenDrained().exclusiveJoin(job->whenFailed()).wait(io.waitScope);
  EXPECT_TRUE(sink.events.empty()) << "events emitted while the sink wanted no more";
  EXPECT_GE(sink.asked, 1);
  // The exit waits for the output read before it, which waits for the sink.
  EXPECT_FALSE(exited.poll(io.waitScope));

  sink.openUp();
  exited.wait(io.waitScope);
  auto summary = job->finish().wait(io.waitScope);
  job = nullptr;

  std::string output, expected;
  size_t frames = 0, chunks = 0;
  bool exitSeen = false;
  uint64_t lastNs = 0;
  for (auto& e : sink.events) {
    EXPECT_GE(e.atNs, lastNs) << "events out of time order";
    lastNs = e.atNs;
    if (e.kind == Event::Kind::OUTPUT) {
      EXPECT_FALSE(exitSeen) << "output read before the exit was emitted after it";
      output += e.output;
      ++chunks;
    }
    frames += e.kind == Event::Kind::RENDERED;
    exitSeen = exitSeen || e.kind == Event::Kind::EXITED;
  }
  for (int i = 1; i <= 100000; ++i)
    expected += std::to_string(i) + "\r\n";
  EXPECT_TRUE(exitSeen);
  EXPECT_EQ(output, expected);
  EXPECT_EQ(frames, chunks);  // every chunk was rendered once let through
  EXPECT_EQ(frames, summary.renderedFrames);
  EXPECT_FALSE(summary.truncated);
}

}  // namespace
}  // namespace rea::helper
