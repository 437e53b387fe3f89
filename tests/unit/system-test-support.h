#pragma once
// Shared by the tests of helpers/common/system/ and of its users: fresh run tokens, real
// processes carrying one (or another, or none), pid reuse staged on purpose, and the
// end-of-test checks (no run-token carrier survives, no capture cgroup is left).

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <string>

#include <gtest/gtest.h>
#include <kj/debug.h>

#include "helpers/common/system/ownership.h"
#include "helpers/common/system/proc-stat.h"

namespace rea::helper::testing {

inline bool isLive(pid_t pid) {
  KJ_IF_MAYBE (stat, readStat(pid)) {
    return !stat->isZombie();
  }
  return false;
}
// The process exists and is not a zombie.

inline std::string freshToken() {
  std::random_device random;
  char text[40];
  snprintf(text, sizeof(text), "test-%08x-%08x", random(), random());
  return text;
}

inline void expectNothingLeft(const std::string& token, const std::string& cgroupPath) {
  for (int i = 0; i < 100 && !findTokenCarriers(token).empty(); ++i) {
    usleep(10000);
  }
  EXPECT_TRUE(findTokenCarriers(token).empty()) << "a process carrying the run token survived";
  if (!cgroupPath.empty()) {
    struct stat st;
    EXPECT_NE(stat(cgroupPath.c_str(), &st), 0) << "capture cgroup left behind: " << cgroupPath;
  }
}

// SIGKILLs one child of this process and reaps it.
inline void reap(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

// Kills every process carrying `token` (used by tests after a failure, so nothing leaks).
inline void killCarriers(const std::string& token) {
  for (pid_t pid : findTokenCarriers(token)) {
    kill(pid, SIGKILL);
  }
}

// Forks a child that has pid `wanted` (set /proc/sys/kernel/ns_last_pid, then fork), retrying
// while other processes on the machine take the pid first. The child runs `child` and must not
// return. Returns the child's pid, or -1 when the pid could not be had (the caller skips).
template <typename Func>
pid_t forkWithPid(pid_t wanted, Func&& child) {
  for (int attempt = 0; attempt < 500; ++attempt) {
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    std::string last = std::to_string(wanted - 1);
    bool written = write(fd, last.data(), last.size()) == static_cast<ssize_t>(last.size());
    close(fd);
    if (!written) return -1;
    pid_t pid = fork();
    if (pid == 0) {
      if (getpid() != wanted) _exit(0);
      child();
      _exit(127);
    }
    if (pid == wanted) return pid;
    waitpid(pid, nullptr, 0);
  }
  return -1;
}

// Starts `sleep 30` with REA_PROCESS_RUN_ID=token (or none when token is null), in the process
// group `group` (0: its own), and waits until it has exec'd.
inline pid_t spawnSleeper(const char* token, pid_t group = 0) {
  std::string var = std::string("REA_PROCESS_RUN_ID=") + (token != nullptr ? token : "");
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, group);
    char* envp[] = {token != nullptr ? var.data() : nullptr, nullptr};
    execle("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr), envp);
    _exit(127);
  }
  setpgid(pid, group);  // both sides, so the group is set before anyone looks
  for (int i = 0; i < 500; ++i) {
    auto read = readProcFile("/proc/" + std::to_string(pid) + "/cmdline");
    if (read.text.compare(0, 5, "sleep") == 0) break;
    usleep(2000);
  }
  return pid;
}

// This machine's PID 1 does not reap orphans; the test process adopts them instead (call once
// before spawning) and reaps them with `reapChildren()`.
inline void adoptOrphans() {
  KJ_SYSCALL(prctl(PR_SET_CHILD_SUBREAPER, 1));
}

// Reaps every exited child; waits up to ~2 s for children that are still dying.
inline void reapChildren() {
  for (int i = 0; i < 200; ++i) {
    pid_t pid = waitpid(-1, nullptr, WNOHANG);
    if (pid > 0) continue;
    if (pid < 0) return;  // ECHILD: none left
    usleep(10000);
  }
}

}  // namespace rea::helper::testing
