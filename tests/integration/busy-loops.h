#pragma once
// The load under which issue 17 saw captures of one scenario differ: one spinning process per
// core of the test machine (2 here), for the lifetime of the object. Tests that must hold on a
// busy machine create one around their captures.
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <vector>

extern char** environ;

namespace rea::test {

class BusyLoops {
 public:
  explicit BusyLoops(int count = 2) {
    // Spawned, not forked: a fork of this test program (threads, and under the sanitizers a
    // large shadow mapping) would copy it for a loop that needs none of it.
    for (int i = 0; i < count; ++i) {
      pid_t pid = 0;
      const char* argv[] = {"/bin/sh", "-c", "while :; do :; done", nullptr};
      int error = posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ);
      // Without its load a load test proves nothing: say so instead of passing quietly.
      if (error == 0)
        pids.push_back(pid);
      else
        ADD_FAILURE() << "cannot start a busy loop: " << strerror(error);
    }
  }
  ~BusyLoops() {
    for (pid_t pid : pids)
      kill(pid, SIGKILL);
    for (pid_t pid : pids)
      waitpid(pid, nullptr, 0);
  }
  BusyLoops(const BusyLoops&) = delete;
  BusyLoops& operator=(const BusyLoops&) = delete;

 private:
  std::vector<pid_t> pids;
};

}  // namespace rea::test
