// The progress line of `rea capture-process` (supervisor/cli/capture-progress.h): drawn on stderr
// when stderr is a terminal (here a real pty), with plausible elapsed time, bytes and phase,
// erased at the end; absent when stderr is a pipe or file; the capture on stdout the same
// either way.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <regex>
#include <set>
#include <thread>

#include "tests/integration/harness.h"

namespace rea::test {
namespace {

// About two seconds of output, twenty lines without digits (a PID namespace normalises small
// numbers that are pids, which differ between runs).
Json tickingScenario() {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments",
               {"-c",
                "for w in a b c d e f g h i j k l m n o p q r s t; do echo tick $w; sleep 0.1; "
                "done"}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"timeout_ms", 60000}};
}

struct Terminal {
  int master = -1;
  int slave = -1;
  std::string received;
  std::thread reader;

  Terminal() {
    if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) return;
    fcntl(master, F_SETFD, FD_CLOEXEC);
    fcntl(slave, F_SETFD, FD_CLOEXEC);  // dup2 onto fd 2 in the child clears it there
    reader = std::thread([this]() {
      char buffer[4096];
      for (;;) {
        ssize_t n = read(master, buffer, sizeof(buffer));
        if (n > 0) {
          received.append(buffer, static_cast<size_t>(n));
        } else if (!(n < 0 && errno == EINTR)) {
          return;  // EIO: every slave fd is closed
        }
      }
    });
  }

  std::string closeAndCollect() {
    close(slave);  // rea has exited: the master now reads EIO once drained
    reader.join();
    close(master);
    return received;
  }
};

struct ProgressLine {
  uint64_t elapsedDeciseconds;
  std::string phase;
  uint64_t bytes;
};

std::vector<ProgressLine> progressLines(const std::string& text) {
  static const std::regex LINE(R"(\r\x1b\[Krea: (\d+)\.(\d) s  ([a-z]+)  (\d+) bytes captured)");
  std::vector<ProgressLine> lines;
  for (std::sregex_iterator it(text.begin(), text.end(), LINE), end; it != end; ++it) {
    lines.push_back(
        {std::stoull((*it)[1]) * 10 + std::stoull((*it)[2]), (*it)[3], std::stoull((*it)[4])});
  }
  return lines;
}

TEST(CaptureProgress, DrawnOnATerminalAndAbsentOnAPipe) {
  Sandbox sandbox;
  Terminal terminal;
  ASSERT_GE(terminal.master, 0) << "openpty failed";
  sandbox.stderrTo(terminal.slave);
  auto onTerminal = sandbox.capture(tickingScenario());
  sandbox.stderrTo(-1);
  std::string drawn = terminal.closeAndCollect();

  auto onPipe = sandbox.capture(tickingScenario());

  // stdout: a valid capture either way, with the same frames.
  ASSERT_EQ(onTerminal.exitCode, 0) << onTerminal.stdoutText;
  ASSERT_EQ(onPipe.exitCode, 0) << onPipe.stdoutText;
  ASSERT_TRUE(onTerminal.output && onPipe.output);
  std::string frames = concatenatedFrames(*onTerminal.output);
  EXPECT_EQ(frames, concatenatedFrames(*onPipe.output));
  EXPECT_NE(frames.find("tick t"), std::string::npos) << frames;

  // The terminal saw the line, redrawn in place, with plausible fields.
  auto lines = progressLines(drawn);
  ASSERT_GE(lines.size(), 3u) << "a ~2 s capture redraws about every 250 ms: " << drawn;
  std::set<std::string> phases = {"starting", "running", "settling",
                                  "snapshot", "cleanup", "assembling"};
  bool sawRunning = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_TRUE(phases.count(lines[i].phase)) << lines[i].phase;
    sawRunning = sawRunning || lines[i].phase == "running";
    EXPECT_LE(lines[i].bytes, frames.size() + 64) << "more bytes than the target wrote";
    if (i > 0) {
      EXPECT_GE(lines[i].elapsedDeciseconds, lines[i - 1].elapsedDeciseconds);
      EXPECT_GE(lines[i].bytes, lines[i - 1].bytes);
    }
  }
  EXPECT_TRUE(sawRunning) << drawn;
  EXPECT_GE(lines.back().elapsedDeciseconds, 10u) << "the target runs about two seconds";
  EXPECT_LT(lines.back().elapsedDeciseconds, 600u);
  EXPECT_GT(lines.back().bytes, 0u) << "output was captured while the line was drawn";
  // Erased at the end: the last thing on the terminal is "\r" + erase-line.
  ASSERT_GE(drawn.size(), 4u);
  EXPECT_EQ(drawn.substr(drawn.size() - 4), "\r\x1b[K") << drawn;
  // The lines are the only thing written: no newline (the line is redrawn in place).
  EXPECT_EQ(drawn.find('\n'), std::string::npos) << drawn;

  // A pipe (here a file) gets nothing of it.
  EXPECT_EQ(onPipe.stderrText, "");
}

}  // namespace
}  // namespace rea::test
