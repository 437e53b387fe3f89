// cloneVfork and resetSignalsInChild (helpers/common/vfork-spawn.h) with real children: the
// child shares our memory and we resume only once it has exec'd or exited; it can be born in a
// given cgroup; it execs with default dispositions and nothing blocked.

#include "helpers/common/vfork-spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "helpers/common/system/capture-cgroup.h"
#include "helpers/common/system/cgroup-mounts.h"
#include "tests/unit/system-test-support.h"

// The children run on our memory: no sanitizer shadow writes from them (vfork-spawn.h).
#define NO_ASAN __attribute__((no_sanitize_address))

namespace rea::helper {
namespace {

int waitStatus(pid_t pid) {
  int status = -1;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

// What a child sees, written to a pipe by an exec'd shell.
struct ShellPlan {
  const char* script;
  int out;
};

NO_ASAN int runShell(void* argument) {
  auto* plan = static_cast<ShellPlan*>(argument);
  resetSignalsInChild();
  if (dup2(plan->out, STDOUT_FILENO) < 0) _exit(126);
  const char* argv[] = {"/bin/sh", "-c", plan->script, nullptr};
  const char* envp[] = {nullptr};
  execve(argv[0], const_cast<char**>(argv), const_cast<char**>(envp));
  _exit(127);
}

std::string runAndRead(const char* script, int cgroupFd = -1) {
  int pipeFds[2];
  EXPECT_EQ(pipe2(pipeFds, O_CLOEXEC), 0);
  ShellPlan plan{script, pipeFds[1]};
  pid_t pid = cloneVfork(cgroupFd, runShell, &plan);
  EXPECT_GT(pid, 0) << strerror(errno);
  close(pipeFds[1]);
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = read(pipeFds[0], buffer, sizeof(buffer))) > 0)
    text.append(buffer, size_t(n));
  close(pipeFds[0]);
  int status = waitStatus(pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return text;
}

volatile int markedByChild = 0;

NO_ASAN int markThenExit(void* code) {
  markedByChild = 1;  // our memory: visible to the parent (the test's proof of CLONE_VM)
  _exit(*static_cast<int*>(code));
}

TEST(VforkSpawn, TheChildSharesOurMemoryAndWeResumeWhenItHasExited) {
  markedByChild = 0;
  int code = 7;
  pid_t pid = cloneVfork(-1, markThenExit, &code);
  ASSERT_GT(pid, 0) << strerror(errno);
  EXPECT_EQ(markedByChild, 1) << "resumed before the child ran";
  int status = waitStatus(pid);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

NO_ASAN int returnNine(void*) {
  return 9;
}

TEST(VforkSpawn, AnEntryThatReturnsEndsTheChildWithItsValue) {
  pid_t pid = cloneVfork(-1, returnNine, nullptr);
  ASSERT_GT(pid, 0) << strerror(errno);
  int status = waitStatus(pid);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 9);
}

TEST(VforkSpawn, TheChildExecsWithDefaultDispositionsAndNothingBlocked) {
  // Ours: SIGUSR1 ignored, SIGUSR2 blocked. An exec keeps both; the child must not.
  struct sigaction ignore, savedAction;
  memset(&ignore, 0, sizeof(ignore));
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGUSR1, &ignore, &savedAction), 0);
  sigset_t usr2, savedMask;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &usr2, &savedMask), 0);

  std::string status = runAndRead("grep -E '^Sig(Blk|Ign):' /proc/self/status");

  sigaction(SIGUSR1, &savedAction, nullptr);
  pthread_sigmask(SIG_SETMASK, &savedMask, nullptr);
  EXPECT_NE(status.find("SigBlk:\t0000000000000000"), std::string::npos) << status;
  EXPECT_NE(status.find("SigIgn:\t0000000000000000"), std::string::npos) << status;

  // And ours are as they were: the child's resets did not reach us.
  struct sigaction now;
  ASSERT_EQ(sigaction(SIGUSR1, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, savedAction.sa_handler);
}

TEST(VforkSpawn, TheChildIsBornInTheGivenCgroup) {
  auto made = CaptureCgroup::create(testing::freshToken());
  if (made.is<std::string>()) GTEST_SKIP() << "no writable cgroup2 hierarchy";
  auto group = kj::mv(made.get<kj::Own<CaptureCgroup>>());
  std::string mount = KJ_ASSERT_NONNULL(findCgroup2Mount());
  std::string expected = "0::" + group->path().substr(mount.size()) + "\n";
  std::string seen = runAndRead("cat /proc/self/cgroup", group->dirFd());
  EXPECT_NE(seen.find(expected), std::string::npos) << seen << " expected " << expected;
  EXPECT_TRUE(group->remove());
}

NO_ASAN int failExec(void*) {
  resetSignalsInChild();
  const char* argv[] = {"/nonexistent/program", nullptr};
  execve(argv[0], const_cast<char**>(argv), nullptr);
  _exit(errno == ENOENT ? 42 : 43);
}

TEST(VforkSpawn, AFailedExecEndsTheChildAndResumesUs) {
  pid_t pid = cloneVfork(-1, failExec, nullptr);
  ASSERT_GT(pid, 0) << strerror(errno);
  int status = waitStatus(pid);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

}  // namespace
}  // namespace rea::helper
