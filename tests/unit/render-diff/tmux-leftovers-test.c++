// A differential test killed by ctest's timeout leaves its tmux server and directory; the next
// driver's start removes them (tmux-leftovers.h), and leaves a live run's alone.
//
// Every driver here lives in a child process: a driver's destructor waits for all children of
// its process (it is their subreaper), so a second driver in this process could wait forever on
// the server of the first (the whole-program driver of render-diff-test.c++).

#include "tests/unit/render-diff/tmux-driver.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace rea::test {
namespace {

struct DriverChild {
  pid_t pid = -1;
  int release = -1;  // closing it ends the child (its driver is destroyed first)
};

// A child process that starts a TmuxDriver and holds it until `release` is closed. A busy one
// goes on replaying into fresh windows meanwhile, as a test killed by its timeout was: its
// control client has answers in flight, and a server in that state never finishes kill-server.
DriverChild startDriverChild(bool busy) {
  int ready[2], hold[2];
  // O_CLOEXEC: a tmux started by a later child must not hold `release` open (its child would
  // never see the end of it).
  if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(hold, O_CLOEXEC) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    close(hold[1]);
    int code = 0;
    try {
      TmuxDriver driver(10);
      char byte = 'r';
      (void)!::write(ready[1], &byte, 1);
      if (busy) {
        while (true) {
          driver.start(20, 5);
          driver.feed("hello\r\n");
          driver.capture();
        }
      }
      (void)!::read(hold[0], &byte, 1);
    } catch (...) {
      code = 1;
    }
    _exit(code);
  }
  close(ready[1]);
  close(hold[0]);
  char byte;
  bool started = ::read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  if (!started) {
    close(hold[1]);
    waitpid(pid, nullptr, 0);
    return {};
  }
  return DriverChild{pid, hold[1]};
}

int endDriverChild(DriverChild& child) {
  close(child.release);
  int status = -1;
  waitpid(child.pid, &status, 0);
  return status;
}

// The run directory of the driver in process `owner`, or "".
std::string runDirectoryOf(pid_t owner) {
  std::string prefix = std::string(RUN_DIRECTORY_PREFIX) + std::to_string(owner) + "-";
  std::string found;
  if (DIR* tmp = opendir("/tmp")) {
    while (dirent* entry = readdir(tmp)) {
      if (std::string(entry->d_name).rfind(prefix, 0) == 0) {
        found = std::string("/tmp/") + entry->d_name;
        break;
      }
    }
    closedir(tmp);
  }
  return found;
}

bool exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

TEST(TmuxLeftovers, TheNextDriverEndsAKilledRunsServerAndKeepsALiveRuns) {
  if (!TmuxDriver::available()) GTEST_SKIP() << "tmux is not installed";
  DriverChild live = startDriverChild(false);
  DriverChild killed = startDriverChild(true);
  ASSERT_GT(live.pid, 0);
  ASSERT_GT(killed.pid, 0);
  std::string liveDir = runDirectoryOf(live.pid);
  std::string killedDir = runDirectoryOf(killed.pid);
  ASSERT_NE(liveDir, "");
  ASSERT_NE(killedDir, "");
  pid_t liveServer = atoi(tmuxThrough(liveDir + "/sock", {"display", "-p", "#{pid}"}).c_str());
  pid_t killedServer = atoi(tmuxThrough(killedDir + "/sock", {"display", "-p", "#{pid}"}).c_str());
  ASSERT_GT(liveServer, 0);
  ASSERT_GT(killedServer, 0);

  // What ctest's timeout does: SIGKILL, no destructor, in the middle of the work.
  usleep(200 * 1000);  // not a wait for an outcome: only lets the child get going
  kill(killed.pid, SIGKILL);
  waitpid(killed.pid, nullptr, 0);
  ASSERT_TRUE(processRuns(killedServer)) << "the server went with its test: nothing to sweep";
  ASSERT_TRUE(exists(killedDir));

  DriverChild next = startDriverChild(false);
  ASSERT_GT(next.pid, 0);
  EXPECT_FALSE(processRuns(killedServer));
  EXPECT_FALSE(exists(killedDir)) << killedDir;
  EXPECT_TRUE(processRuns(liveServer));
  EXPECT_TRUE(exists(liveDir));

  EXPECT_EQ(endDriverChild(next), 0);
  EXPECT_EQ(endDriverChild(live), 0);
  EXPECT_FALSE(exists(liveDir));  // its own destructor removed it
  // The killed server may have been reparented to this process (a subreaper when the
  // whole-program driver exists): reap it.
  waitpid(killedServer, nullptr, WNOHANG);
}

}  // namespace
}  // namespace rea::test
