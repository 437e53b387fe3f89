#pragma once
// Shared by the sampler tests: a kj event loop, a recording sink, a launcher that starts a real
// target the way the pty helper does (inside the capture cgroup via clone3, session leader,
// run token in its environment), and the end-of-test checks (no run-token carrier survives, the
// capture cgroup is gone).

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <kj/async-io.h>
#include <kj/async-unix.h>
#include <kj/debug.h>

#include "helpers/sampler/capture-cgroup.h"
#include "helpers/sampler/ownership.h"
#include "helpers/sampler/proc-stat.h"
#include "helpers/sampler/process-observer.h"

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

class RecordingSink final : public ProcessSink {
 public:
  void record(const ProcessRecord& record) override { records.push_back(record); }
  std::vector<ProcessRecord> records;

  std::vector<ProcessRecord> withCommand(const std::string& command) const {
    std::vector<ProcessRecord> out;
    for (const auto& r : records) {
      if (r.command == command) out.push_back(r);
    }
    return out;
  }
  bool sawPid(pid_t pid) const {
    for (const auto& r : records) {
      if (r.pid == pid) return true;
    }
    return false;
  }
};

struct Target {
  pid_t pid;
  kj::AutoCloseFd pidfd;
};

// Starts `argv` as the capture's root: inside the observer's cgroup when it has one (clone3, as
// the pty helper does), otherwise by fork; the child makes itself a session leader and execs
// with only PATH and the run token (plus `extraEnv`) in its environment.
inline Target spawnTarget(ProcessObserver& observer, const std::string& token,
                          std::vector<std::string> argv, std::vector<std::string> extraEnv = {}) {
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "REA_PROCESS_RUN_ID=" + token};
  for (auto& e : extraEnv) {
    env.push_back(e);
  }
  std::vector<char*> args, envp;
  for (auto& a : argv) {
    args.push_back(a.data());
  }
  args.push_back(nullptr);
  for (auto& e : env) {
    envp.push_back(e.data());
  }
  envp.push_back(nullptr);
  int pidfd = -1;
  pid_t pid;
  KJ_IF_MAYBE (group, observer.cgroup()) {
    pid = cloneIntoCgroup(group->dirFd(), &pidfd);
  } else {
    pid = fork();
    KJ_ASSERT(pid >= 0);
  }
  if (pid == 0) {
    setsid();
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  if (pidfd < 0) pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  KJ_ASSERT(pidfd >= 0);
  return Target{pid, kj::AutoCloseFd(pidfd)};
}

// Runs the loop until the target exits, then reaps it; returns its wait status.
inline int waitForExit(kj::AsyncIoContext& io, Target& target) {
  kj::UnixEventPort::FdObserver exited(io.unixEventPort, target.pidfd.get(),
                                       kj::UnixEventPort::FdObserver::OBSERVE_READ);
  int status = 0;
  while (waitpid(target.pid, &status, WNOHANG) == 0) {
    exited.whenBecomesReadable()
        .exclusiveJoin(io.provider->getTimer().afterDelay(20 * kj::MILLISECONDS))
        .wait(io.waitScope);
  }
  return status;
}

// Lets the loop run for `ms` milliseconds (observation continues meanwhile).
inline void runFor(kj::AsyncIoContext& io, int ms) {
  io.provider->getTimer().afterDelay(ms * kj::MILLISECONDS).wait(io.waitScope);
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
