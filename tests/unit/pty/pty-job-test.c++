// The pty helper's job code against real PTYs and real programs, in one process.
#include "helpers/pty/pty-job.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <kj/async-io.h>
#include <set>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>

#include "evidence/utf.h"
#include "helpers/common/clock.h"
#include "tests/unit/pty-job-support.h"

namespace rea::helper {
namespace {

using Event = PtyJobEvent;
using testing::Recorder;
using testing::Run;
using testing::run;

PtyJobConfig shell(const char* script) {
  PtyJobConfig config;
  config.executable = "/bin/sh";
  config.arguments = {"-c", script};
  config.workingDirectory = "/";
  config.environment = {"PATH=/usr/bin:/bin", "TERM=xterm-256color"};
  config.timeoutMs = 60000;
  config.idleTimeoutMs = 60000;
  return config;
}

PtyJobInteraction input(uint64_t atMs, std::string data) {
  PtyJobInteraction event;
  event.type = PtyJobInteraction::Type::INPUT;
  event.atMs = atMs;
  event.data = kj::mv(data);
  return event;
}

PtyJobInteraction signalAt(uint64_t atMs, int signal) {
  PtyJobInteraction event;
  event.type = PtyJobInteraction::Type::SIGNAL;
  event.atMs = atMs;
  event.signal = signal;
  return event;
}

void expectNoChildrenLeft() {
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(PtyJob, CapturesEchoOutputWhole) {
  PtyJobConfig config;
  config.executable = "/bin/echo";
  config.arguments = {"hello", "world"};
  config.workingDirectory = "/";
  auto result = run(kj::mv(config));
  EXPECT_EQ(result.output(), "hello world\r\n");
  EXPECT_TRUE(result.exit().exitedNormally);
  EXPECT_EQ(result.exit().status, 0);
  EXPECT_EQ(result.exit().reason, Event::Reason::EXITED);
  EXPECT_FALSE(result.summary.truncated);
  EXPECT_GE(result.exit().atNs, result.spawnedAtNs);
  expectNoChildrenLeft();
}

TEST(PtyJob, CapturesFiveMegabytesWrittenRightBeforeExit) {
  auto config = shell("head -c 5000000 /dev/zero | tr '\\0' a; exit 7");
  config.maxOutputBytes = 10000000;
  config.maxFrames = 100000;
  auto result = run(kj::mv(config));
  auto output = result.output();
  EXPECT_EQ(output.size(), 5000000u);
  EXPECT_EQ(output.find_first_not_of('a'), std::string::npos);
  EXPECT_EQ(result.exit().status, 7);
  EXPECT_FALSE(result.summary.truncated);
  expectNoChildrenLeft();
}

TEST(PtyJob, StartsTheTargetAsSessionLeaderWithExactlyTheGivenEnvironment) {
  auto config = shell(
      "read pid comm state ppid pgrp session rest < /proc/$$/stat; echo ids:$pid:$pgrp:$session;"
      " pwd; env | sort");
  config.workingDirectory = "/tmp";
  config.environment = {"PATH=/usr/bin:/bin", "B=2", "A=1"};
  auto result = run(kj::mv(config));
  auto id = std::to_string(result.rootPid);
  auto output = result.output();
  EXPECT_NE(output.find("ids:" + id + ":" + id + ":" + id + "\r\n"), std::string::npos) << output;
  EXPECT_NE(output.find("/tmp\r\nA=1\r\nB=2\r\nPATH=/usr/bin:/bin\r\n"), std::string::npos)
      << output;
}

TEST(PtyJob, SetsTheBaselineTermios) {
  auto result = run(shell("stty -a"));
  auto output = result.output();
  std::set<std::string> words;
  std::istringstream stream(output);
  for (std::string word; stream >> word;)
    words.insert(word);
  for (auto flag :
       {"38400", "icrnl", "ixon",   "ixany",   "imaxbel", "brkint",  "iutf8",  "opost",
        "onlcr", "cread", "cs8",    "hupcl",   "icanon",  "isig",    "iexten", "echo",
        "echoe", "echok", "echoke", "echoctl", "-inlcr",  "-istrip", "-ocrnl", "-echonl"}) {
    EXPECT_EQ(words.count(flag), 1u) << flag << " missing in " << output;
  }
  EXPECT_NE(output.find("intr = ^C; quit = ^\\; erase = ^?; kill = ^U; eof = ^D;"),
            std::string::npos)
      << output;
}

TEST(PtyJob, AnswersAPromptWithAnInputEvent) {
  auto config = shell("read x; echo got:$x");
  config.events = {input(100, "hello\r")};
  auto result = run(kj::mv(config));
  EXPECT_NE(result.output().find("got:hello\r\n"), std::string::npos) << result.output();
  auto dispatches = result.dispatches();
  ASSERT_EQ(dispatches.size(), 1u);
  EXPECT_EQ(dispatches[0].eventIndex, 0u);
  EXPECT_EQ(dispatches[0].outcome, Event::Outcome::DISPATCHED);
  EXPECT_GE(dispatches[0].atNs, result.spawnedAtNs + 100 * 1000000);
  EXPECT_EQ(result.exit().status, 0);
}

TEST(PtyJob, ResizeEventIsSeenByTheTarget) {
  auto config = shell("trap 'stty size' WINCH; stty size; sleep 1; stty size");
  config.columns = 80;
  config.rows = 24;
  PtyJobInteraction resize;
  resize.type = PtyJobInteraction::Type::RESIZE;
  resize.atMs = 300;
  resize.columns = 100;
  resize.rows = 40;
  config.events = {resize};
  auto result = run(kj::mv(config));
  auto output = result.output();
  EXPECT_EQ(output.find("24 80\r\n"), 0u) << output;
  EXPECT_NE(output.find("40 100\r\n"), std::string::npos) << output;
  ASSERT_EQ(result.dispatches().size(), 1u);
  EXPECT_EQ(result.dispatches()[0].outcome, Event::Outcome::DISPATCHED);
}

TEST(PtyJob, SignalEventGoesToTheRoot) {
  PtyJobConfig config;
  config.executable = "/bin/sleep";
  config.arguments = {"30"};
  config.workingDirectory = "/";
  config.events = {signalAt(100, SIGTERM)};
  auto result = run(kj::mv(config));
  EXPECT_FALSE(result.exit().exitedNormally);
  EXPECT_EQ(result.exit().status, SIGTERM);
  EXPECT_EQ(result.exit().reason, Event::Reason::EXITED);
  ASSERT_EQ(result.dispatches().size(), 1u);
  EXPECT_EQ(result.dispatches()[0].outcome, Event::Outcome::DISPATCHED);
}

TEST(PtyJob, SignalTrappedByTheTargetLetsItExitWithItsOwnCode) {
  auto config = shell("trap 'echo caught; exit 3' INT; echo ready; while :; do sleep 0.05; done");
  config.events = {signalAt(300, SIGINT)};
  auto result = run(kj::mv(config));
  EXPECT_NE(result.output().find("caught"), std::string::npos) << result.output();
  EXPECT_TRUE(result.exit().exitedNormally);
  EXPECT_EQ(result.exit().status, 3);
}

TEST(PtyJob, EventsNotFiredAtExitAreReportedAsTargetExited) {
  PtyJobConfig config;
  config.executable = "/bin/true";
  config.workingDirectory = "/";
  config.events = {input(20000, "late\r"), signalAt(30000, SIGINT)};
  auto result = run(kj::mv(config));
  auto dispatches = result.dispatches();
  ASSERT_EQ(dispatches.size(), 2u);
  for (uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(dispatches[i].eventIndex, i);
    EXPECT_EQ(dispatches[i].outcome, Event::Outcome::TARGET_EXITED);
    EXPECT_EQ(dispatches[i].atNs, result.exit().atNs);
  }
}

TEST(PtyJob, AWaitingEventHoldsTheChainUntilItIsReleased) {
  // Issue 19: the helper holds an event that waits (and every later one) until the supervisor
  // releases it, performed or timed out.
  auto config = shell("read a; echo got:$a; read b; echo got:$b");
  auto first = input(0, "one\r");
  first.waits = true;
  auto second = input(0, "two\r");
  second.waits = true;
  config.events = {first, second, input(0, "three\r")};
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  auto job = PtyJob::start(io, kj::mv(config), recorder, []() {});
  auto dispatched = [&]() {
    std::vector<Event> list;
    for (auto& e : recorder.events) {
      if (e.kind == Event::Kind::DISPATCHED) list.push_back(e);
    }
    return list;
  };
  io.provider->getTimer().afterDelay(200 * kj::MILLISECONDS).wait(io.waitScope);
  EXPECT_TRUE(dispatched().empty()) << "a later timed event overtook the waiting one";
  job->release(2, true, false);  // does not wait: ignored
  job->release(0, false, false);
  job->release(0, true, true);  // a second release: ignored
  io.provider->getTimer().afterDelay(100 * kj::MILLISECONDS).wait(io.waitScope);
  job->release(1, true, false);
  job->whenExited().wait(io.waitScope);
  job->whenDrained().wait(io.waitScope);
  job->finish().wait(io.waitScope);
  job = nullptr;
  auto list = dispatched();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].outcome, Event::Outcome::DISPATCHED);
  EXPECT_EQ(list[1].eventIndex, 1u);
  EXPECT_EQ(list[1].outcome, Event::Outcome::TIMED_OUT);
  EXPECT_EQ(list[2].outcome, Event::Outcome::DISPATCHED);
  std::string output;
  for (auto& e : recorder.events) {
    if (e.kind == Event::Kind::OUTPUT) output += e.output;
  }
  EXPECT_NE(output.find("got:one\r\n"), std::string::npos) << output;
  EXPECT_NE(output.find("got:three\r\n"), std::string::npos) << output;
  EXPECT_EQ(output.find("two"), std::string::npos) << output;
}

TEST(PtyJob, AWaitingEventTimedOutWithStopEndsTheRun) {
  auto config = shell("read a; echo got:$a");
  auto waiting = input(0, "one\r");
  waiting.waits = true;
  config.events = {waiting, input(0, "later\r")};
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  auto job = PtyJob::start(io, kj::mv(config), recorder, []() {});
  job->release(0, true, true);
  job->whenExited().wait(io.waitScope);
  job->finish().wait(io.waitScope);
  job = nullptr;
  std::vector<Event> list;
  const Event* exit = nullptr;
  for (auto& e : recorder.events) {
    if (e.kind == Event::Kind::DISPATCHED) list.push_back(e);
    if (e.kind == Event::Kind::EXITED) exit = &e;
  }
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].outcome, Event::Outcome::TIMED_OUT);
  EXPECT_EQ(list[1].outcome, Event::Outcome::TARGET_EXITED);
  ASSERT_NE(exit, nullptr);
  EXPECT_EQ(exit->reason, Event::Reason::TIMEOUT);
  EXPECT_EQ(exit->status, SIGKILL);
}

TEST(PtyJob, WritesRepliesToTheTargetAsInput) {
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  auto job = PtyJob::start(io, shell("read x; echo got:$x"), recorder, []() {});
  job->writeToTarget("reply\r");
  job->whenExited().wait(io.waitScope);
  job->whenDrained().wait(io.waitScope);
  job->finish().wait(io.waitScope);
  std::string output;
  for (auto& e : recorder.events)
    output += e.output;
  EXPECT_NE(output.find("got:reply\r\n"), std::string::npos) << output;
}

TEST(PtyJob, TimeoutKillsTheRoot) {
  uint64_t t0 = monotonicNowNs();
  PtyJobConfig config;
  config.t0Ns = t0;
  config.executable = "/bin/sleep";
  config.arguments = {"30"};
  config.workingDirectory = "/";
  config.timeoutMs = 200;
  config.idleTimeoutMs = 60000;
  auto result = run(kj::mv(config));
  EXPECT_FALSE(result.exit().exitedNormally);
  EXPECT_EQ(result.exit().status, SIGKILL);
  EXPECT_EQ(result.exit().reason, Event::Reason::TIMEOUT);
  EXPECT_GE(result.exit().atNs, t0 + 200 * 1000000);
}

TEST(PtyJob, IdleTimeoutKillsASilentRoot) {
  auto config = shell("echo hi; exec sleep 30");
  config.timeoutMs = 60000;
  config.idleTimeoutMs = 300;
  auto result = run(kj::mv(config));
  EXPECT_EQ(result.output(), "hi\r\n");
  EXPECT_FALSE(result.exit().exitedNormally);
  EXPECT_EQ(result.exit().status, SIGKILL);
  EXPECT_EQ(result.exit().reason, Event::Reason::IDLE_TIMEOUT);
}

TEST(PtyJob, OutputKeepsTheIdleWatchdogAway) {
  auto config = shell("for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.25; done");
  config.idleTimeoutMs = 1500;
  auto result = run(kj::mv(config));
  EXPECT_TRUE(result.exit().exitedNormally);
  EXPECT_EQ(result.exit().reason, Event::Reason::EXITED);
}

TEST(PtyJob, ExecFailureIsReportedOnThePtyAndExitsOne) {
  PtyJobConfig config;
  config.executable = "/nonexistent/program";
  config.workingDirectory = "/";
  auto result = run(kj::mv(config));
  EXPECT_EQ(result.output(), "execvp(3) failed.: No such file or directory\r\n");
  EXPECT_TRUE(result.exit().exitedNormally);
  EXPECT_EQ(result.exit().status, 1);
}

TEST(PtyJob, SearchesThePathOfTheGivenEnvironment) {
  PtyJobConfig config;
  config.executable = "echo";
  config.arguments = {"found"};
  config.workingDirectory = "/";
  config.environment = {"PATH=/nonexistent:/bin"};
  auto result = run(kj::mv(config));
  EXPECT_EQ(result.output(), "found\r\n");
}

TEST(PtyJob, KeepsAUtf8SequenceSplitAcrossReadsWhole) {
  auto result = run(shell("printf '\\342\\202'; sleep 0.3; printf '\\254|\\377|\\n'"));
  EXPECT_EQ(result.output(), "\xE2\x82\xAC|\xEF\xBF\xBD|\r\n");  // € then U+FFFD for 0xFF
  EXPECT_EQ(result.chunks(), 1u);  // the lone partial read produced no chunk of its own
}

TEST(PtyJob, ByteLimitDropsWholeChunksButAcceptsALaterSmallerOne) {
  auto config = shell("printf 0123456789ABCDEF; sleep 0.3; printf xy; sleep 0.3; printf 12345678");
  config.maxOutputBytes = 10;
  auto result = run(kj::mv(config));
  EXPECT_EQ(result.output(), "xy12345678");
  EXPECT_TRUE(result.summary.truncated);
  EXPECT_EQ(result.summary.droppedChunks, 1u);
}

TEST(PtyJob, TheFrameLimitDropsNoChunk) {
  // A15: reads past limits.frames are joined to the last frame by the supervisor, not dropped.
  auto config = shell("printf one; sleep 0.3; printf two; sleep 0.3; printf three");
  config.maxFrames = 1;
  auto result = run(kj::mv(config));
  EXPECT_EQ(result.output(), "onetwothree");
  EXPECT_FALSE(result.summary.truncated);
  EXPECT_EQ(result.summary.droppedChunks, 0u);
}

TEST(PtyJob, EverythingWrittenBeforeTheExitIsEmittedBeforeIt) {
  // A15 causal order: the last write and the exit race through the tty layer; the exit report
  // waits until the PTY drained, every time.
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto result = run(shell("printf 'first\\n'; printf 'last words'"));
    bool exited = false;
    std::string before;
    for (auto& e : result.events) {
      if (e.kind == Event::Kind::EXITED) exited = true;
      if (!exited && e.kind == Event::Kind::OUTPUT) before += e.output;
    }
    EXPECT_TRUE(exited);
    EXPECT_EQ(before, "first\r\nlast words") << "attempt " << attempt;
  }
}

TEST(PtyJob, DrainsOutputOfADescendantAfterTheRootExited) {
  // The root's exit hangs up its session's foreground group (SIGHUP): a descendant that
  // survives it and writes later must still be captured.
  auto result = run(shell("(trap '' HUP; sleep 0.6; echo late) & sleep 0.2; echo early"));
  auto output = result.output();
  EXPECT_EQ(output, "early\r\nlate\r\n");
  bool lateAfterExit = false;
  bool exited = false;
  for (auto& e : result.events) {
    if (e.kind == Event::Kind::EXITED) exited = true;
    if (exited && e.kind == Event::Kind::OUTPUT && e.output == "late\r\n") lateAfterExit = true;
  }
  EXPECT_TRUE(lateAfterExit);
}

TEST(PtyJob, FinishStopsDrainingWhileADescendantHoldsThePty) {
  auto result = run(shell("sleep 30 & echo started"), /*waitForEof=*/false);
  EXPECT_EQ(result.output(), "started\r\n");
  EXPECT_TRUE(result.exit().exitedNormally);
  // The orphaned `sleep` is not the job's to reap (cleanup is the supervisor's): it was
  // reparented, so this process has no children left.
  expectNoChildrenLeft();
}

TEST(PtyJob, FinishKillsARootThatStillRuns) {
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  PtyJobConfig config;
  config.executable = "/bin/sleep";
  config.arguments = {"30"};
  config.workingDirectory = "/";
  auto job = PtyJob::start(io, kj::mv(config), recorder, []() {});
  pid_t root = job->rootPid();
  auto summary = job->finish().wait(io.waitScope);
  EXPECT_FALSE(summary.truncated);
  ASSERT_FALSE(recorder.events.empty());
  EXPECT_EQ(recorder.events.back().kind, Event::Kind::EXITED);
  EXPECT_EQ(recorder.events.back().status, SIGKILL);
  EXPECT_EQ(::kill(root, 0), -1);
  EXPECT_ANY_THROW(job->finish());
}

TEST(PtyJob, DestroyingAJobKillsAndReapsItsRoot) {
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  PtyJobConfig config;
  config.executable = "/bin/sleep";
  config.arguments = {"30"};
  config.workingDirectory = "/";
  auto job = PtyJob::start(io, kj::mv(config), recorder, []() {});
  pid_t root = job->rootPid();
  job = nullptr;
  EXPECT_EQ(::kill(root, 0), -1);
  expectNoChildrenLeft();
}

TEST(PtyJob, RejectsAnInvalidConfigBeforeSpawning) {
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  auto config = shell("echo never");
  config.events = {signalAt(0, SIGUSR1)};
  EXPECT_ANY_THROW(PtyJob::start(io, kj::mv(config), recorder, []() {}));
  EXPECT_TRUE(recorder.events.empty());
  expectNoChildrenLeft();
}

}  // namespace
}  // namespace rea::helper
