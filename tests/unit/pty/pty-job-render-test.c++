// The pty helper's job with its renderer (B §6.11, A11): frames after accepted chunks and
// dispatched resizes, the rendered budget, answered terminal queries. Real PTYs, real programs.
#include <gtest/gtest.h>
#include <kj/async-io.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers/pty/pty-job.h"
#include "tests/unit/pty-job-support.h"

namespace rea::helper {
namespace {

using Event = PtyJobEvent;
using testing::Run;
using testing::run;

PtyJobConfig program(const char* shell, const char* script) {
  PtyJobConfig config;
  config.executable = shell;
  config.arguments = {"-c", script};
  config.workingDirectory = "/";
  config.environment = {"PATH=/usr/bin:/bin", "TERM=xterm-256color"};
  config.columns = 12;
  config.rows = 3;
  config.timeoutMs = 20000;
  config.idleTimeoutMs = 20000;
  return config;
}

TEST(PtyJobRender, EveryAcceptedChunkIsFollowedByAFrameWithItsTime) {
  auto result = run(program("/bin/sh", "printf 'one\\n'; sleep 0.1; printf '\\033[2;5Htwo'"));
  ASSERT_FALSE(result.of(Event::Kind::OUTPUT).empty());
  const Event* chunk = nullptr;
  for (auto& e : result.events) {
    if (e.kind == Event::Kind::OUTPUT) {
      EXPECT_EQ(chunk, nullptr) << "a chunk without its frame";
      chunk = &e;
    } else if (e.kind == Event::Kind::RENDERED) {
      ASSERT_NE(chunk, nullptr) << "a frame without a chunk";
      EXPECT_EQ(e.atNs, chunk->atNs);
      chunk = nullptr;
    }
  }
  EXPECT_EQ(chunk, nullptr);
  const RenderedScreen& last = *result.of(Event::Kind::RENDERED).back()->rendered;
  EXPECT_EQ(last.lines, (std::vector<std::string>{"one         ", "    two     ", "            "}));
  EXPECT_EQ(last.cursorX, 7);
  EXPECT_EQ(last.cursorY, 1);
  EXPECT_FALSE(last.alternate);
  EXPECT_EQ(result.summary.renderedFrames, result.of(Event::Kind::RENDERED).size());
  EXPECT_FALSE(result.summary.renderTruncated);
}

TEST(PtyJobRender, ADispatchedResizeResizesTheEmulatorAndCapturesAFrame) {
  auto config = program("/bin/sh", "printf ab; sleep 0.4; printf cd");
  PtyJobInteraction resize;
  resize.type = PtyJobInteraction::Type::RESIZE;
  resize.atMs = 150;
  resize.columns = 5;
  resize.rows = 2;
  config.events = {resize};
  auto result = run(kj::mv(config));
  auto frames = result.of(Event::Kind::RENDERED);
  const Event* dispatch = result.of(Event::Kind::DISPATCHED).at(0);
  ASSERT_EQ(dispatch->outcome, Event::Outcome::DISPATCHED);
  const Event* resized = nullptr;
  for (size_t i = 0; i + 1 < result.events.size(); ++i) {
    if (&result.events[i] == dispatch) resized = &result.events[i + 1];
  }
  ASSERT_NE(resized, nullptr);
  ASSERT_EQ(resized->kind, Event::Kind::RENDERED);
  EXPECT_EQ(resized->atNs, dispatch->atNs);
  EXPECT_EQ(resized->rendered->columns, 5);
  EXPECT_EQ(resized->rendered->rows, 2);
  EXPECT_EQ(frames.back()->rendered->lines[0], "abcd ");
}

TEST(PtyJobRender, PastTheRenderedBudgetFramesReplaceOthersAndOnlyAnOversizedOneIsDropped) {
  // A15: a 12x3 frame costs >= 36 bytes of lines plus its state; with room for two, the third
  // is still emitted (the supervisor lets it replace the newest), so nothing is truncated.
  auto config = program("/bin/sh", "printf a; sleep 0.1; printf b; sleep 0.1; printf c");
  config.renderMaxBytes = 90;
  auto result = run(kj::mv(config));
  std::string output;
  for (auto* e : result.of(Event::Kind::OUTPUT))
    output += e->output;
  EXPECT_EQ(output, "abc");
  EXPECT_EQ(result.of(Event::Kind::RENDERED).size(), 3u);
  EXPECT_EQ(result.summary.renderedFrames, 3u);
  EXPECT_FALSE(result.summary.renderTruncated);

  auto tiny = program("/bin/sh", "printf a; sleep 0.1; printf b");
  tiny.renderMaxBytes = 30;  // not even the lines of one frame
  auto dropped = run(kj::mv(tiny));
  EXPECT_EQ(dropped.of(Event::Kind::RENDERED).size(), 0u);
  EXPECT_TRUE(dropped.summary.renderTruncated);
  EXPECT_FALSE(dropped.summary.truncated);  // the raw budget is separate
}

TEST(PtyJobRender, TerminalQueriesAreAnsweredToTheTargetAndReported) {
  // Both queries wait for their answer; without it `read` would block until the timeout.
  auto config = program("/bin/bash",
                        "stty -echo -icanon; printf 'xy\\033[6n'; IFS= read -r -d R a; "
                        "printf '\\033[c'; IFS= read -r -d c b; printf '|%s|%s' \"${a#?}\" "
                        "\"${b#?}\"");
  config.timeoutMs = 5000;
  config.renderMaxFrames = 1;  // the answers do not depend on the renderer still emulating
  auto result = run(kj::mv(config));
  auto exit = result.of(Event::Kind::EXITED).at(0);
  EXPECT_EQ(exit->reason, Event::Reason::EXITED);
  EXPECT_EQ(exit->status, 0);
  auto replies = result.of(Event::Kind::REPLIED);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0]->reply.query, "DSR-cursor");
  EXPECT_EQ(replies[0]->reply.reply, "\x1b[1;3R");
  EXPECT_EQ(replies[1]->reply.query, "DA");
  std::string output;
  for (auto* e : result.of(Event::Kind::OUTPUT))
    output += e->output;
  EXPECT_NE(output.find("|[1;3|[?"), std::string::npos) << output;
}

// A11 "rendering never slows the draining of the PTY". The loop stalls inside a chunk's event
// (the first one after the test knows the root), the way a renderer taking arbitrarily long on one
// frame would (the sink runs on the loop thread, between the chunk and its frame), until the target
// has exited. The target writes 20 MiB, more than the limits and than any queue a back-pressured
// drain could hold: it can only finish if the drain thread kept reading the whole time. No timing
// is asserted; the stall ends after 120 s at the latest so that a regression fails instead of
// hanging.
struct StallingSink final : public PtyJobSink {
  int rootPidfd = -1;
  bool stalled = false;
  bool rootExitedDuringStall = false;
  std::vector<Event> events;
  void event(Event&& event) override {
    // Only once the test has the root's pidfd: the first chunk can be emitted inside
    // PtyJob::start(), before it is set, and a poll on -1 would just wait out the 120 s.
    if (event.kind == Event::Kind::OUTPUT && !stalled && rootPidfd >= 0) {
      stalled = true;
      struct pollfd exited = {rootPidfd, POLLIN, 0};
      rootExitedDuringStall = ::poll(&exited, 1, 120000) == 1;
    }
    events.push_back(kj::mv(event));
  }
};

TEST(PtyJobRender, AStalledLoopNeverStallsTheDrain) {
  auto config = program("/bin/sh", "yes abcdefghij | head -c 20971520");
  config.columns = 80;
  config.rows = 24;
  config.maxFrames = 100000;
  config.maxOutputBytes = 10000000;  // the largest limit a scenario can set
  config.timeoutMs = 180000;
  config.idleTimeoutMs = 180000;
  auto io = kj::setupAsyncIo();
  StallingSink sink;
  auto job = PtyJob::start(io, kj::mv(config), sink, []() {});
  int pidfd = int(syscall(SYS_pidfd_open, job->rootPid(), 0));  // a zombie root still has one
  ASSERT_GE(pidfd, 0);
  sink.rootPidfd = pidfd;
  job->whenExited().exclusiveJoin(job->whenFailed()).wait(io.waitScope);
  job->whenDrained().wait(io.waitScope);
  auto summary = job->finish().wait(io.waitScope);
  job = nullptr;
  close(pidfd);

  ASSERT_TRUE(sink.stalled);
  EXPECT_TRUE(sink.rootExitedDuringStall)
      << "the target could not finish writing while the loop was stalled: the drain waited";
  std::string output;
  size_t frames = 0;
  for (auto& e : sink.events) {
    if (e.kind == Event::Kind::OUTPUT) output += e.output;
    frames += e.kind == Event::Kind::RENDERED;
  }
  // Up to the byte limit every byte is there, in order (A10): chunks are accepted in read order
  // until the first that does not fit, and none is larger than 64 KiB.
  std::string expected;
  while (expected.size() < 10000000)
    expected += "abcdefghij\r\n";
  EXPECT_LE(output.size(), 10000000u);
  size_t prefix = 10000000 - 64 * 1024;
  ASSERT_GE(output.size(), prefix);
  EXPECT_TRUE(output.compare(0, prefix, expected, 0, prefix) == 0) << "output lost or reordered";
  EXPECT_TRUE(summary.truncated);
  EXPECT_GT(summary.droppedChunks, 0u);
  EXPECT_GT(frames, 0u);  // the stalled chunk and the ones after it were still rendered
  EXPECT_EQ(frames, summary.renderedFrames);
}

}  // namespace
}  // namespace rea::helper
