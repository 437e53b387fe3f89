// The pty helper's filter: its golden listing, a real job under it, and what it kills.
#include "helpers/pty/seccomp-policy.h"

#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <kj/async-io.h>
#include <signal.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

#include "helpers/pty/pty-job.h"
#include "tests/test-support.h"

namespace rea::helper {
namespace {

using rea::test::readFile;

TEST(PtySeccompPolicy, MatchesTheGoldenFile) {
  // A policy change must show up as a readable diff of tests/data/seccomp/pty.txt.
  auto golden = readFile(REA_SOURCE_DIR "/tests/data/seccomp/pty.txt");
  EXPECT_EQ(std::string(ptySeccompPolicy().describe().cStr()), golden);
}

TEST(PtySeccompPolicy, TheBinaryPrintsTheSamePolicy) {
  FILE* pipe = popen(REA_BINARY_DIR "/bin/rea-pty --seccomp-policy", "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    text.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(text, readFile(REA_SOURCE_DIR "/tests/data/seccomp/pty.txt"));
}

struct Collector final : public PtyJobSink {
  std::string output;
  bool exitedBySigterm = false;
  int dispatched = 0;
  void event(PtyJobEvent&& event) override {
    if (event.kind == PtyJobEvent::Kind::OUTPUT) output += event.output;
    if (event.kind == PtyJobEvent::Kind::EXITED) {
      exitedBySigterm = !event.exitedNormally && event.status == SIGTERM;
    }
    if (event.kind == PtyJobEvent::Kind::DISPATCHED &&
        event.outcome == PtyJobEvent::Outcome::DISPATCHED) {
      ++dispatched;
    }
  }
};

[[noreturn]] void runJobUnderTheFilter() {
  // Spawn, lock down, then drain, resize, write input, signal and reap under the filter.
  auto io = kj::setupAsyncIo();
  Collector sink;
  PtyJobConfig config;
  config.executable = "/bin/sh";
  config.arguments = {"-c", "read x; stty size; echo got:$x; exec sleep 30"};
  config.workingDirectory = "/";
  config.environment = {"PATH=/usr/bin:/bin"};
  PtyJobInteraction resize;
  resize.type = PtyJobInteraction::Type::RESIZE;
  resize.atMs = 50;
  resize.columns = 100;
  resize.rows = 40;
  PtyJobInteraction input;
  input.type = PtyJobInteraction::Type::INPUT;
  input.atMs = 100;
  input.data = "hi\r";
  PtyJobInteraction term;
  term.type = PtyJobInteraction::Type::SIGNAL;
  term.atMs = 600;
  term.signal = SIGTERM;
  config.events = {resize, input, term};
  auto job = PtyJob::start(io, kj::mv(config), sink, []() { ptySeccompPolicy().load(); });
  job->whenExited().wait(io.waitScope);
  job->finish().wait(io.waitScope);
  job = nullptr;
  bool ok = sink.output.find("40 100\r\ngot:hi\r\n") != std::string::npos && sink.exitedBySigterm &&
            sink.dispatched == 3;
  if (!ok && write(STDERR_FILENO, sink.output.data(), sink.output.size()) < 0) _exit(2);
  _exit(ok ? 0 : 1);
}

TEST(PtySeccompPolicy, ARealJobRunsUnderTheFilter) {
  EXPECT_EXIT(runJobUnderTheFilter(), testing::ExitedWithCode(0), "");
}

[[noreturn]] void execUnderTheFilter() {
  ptySeccompPolicy().load();
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  execv("/bin/true", argv);
  _exit(0);
}

[[noreturn]] void openUnderTheFilter() {
  ptySeccompPolicy().load();
  open("/etc/passwd", O_RDONLY);
  _exit(0);
}

[[noreturn]] void socketUnderTheFilter() {
  ptySeccompPolicy().load();
  socket(AF_INET, SOCK_STREAM, 0);
  _exit(0);
}

[[noreturn]] void forkUnderTheFilter() {
  ptySeccompPolicy().load();
  fork();
  _exit(0);
}

TEST(PtySeccompPolicy, KillsExecOpenSocketsAndFork) {
  EXPECT_EXIT(execUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(openUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(socketUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(forkUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
}

}  // namespace
}  // namespace rea::helper
