#pragma once
// Shared by the sampler tests: a kj event loop, a recording sink and a launcher that starts a real
// target the way the pty helper does (inside the capture cgroup via clone3, session leader,
// run token in its environment); the rest (tokens, sleepers, end-of-test checks) is
// system-test-support.h.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <kj/async-io.h>
#include <kj/async-unix.h>
#include <kj/debug.h>

#include "helpers/common/system/capture-cgroup.h"
#include "helpers/sampler/process-observer.h"
#include "tests/unit/system-test-support.h"

namespace rea::helper::testing {

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

}  // namespace rea::helper::testing
