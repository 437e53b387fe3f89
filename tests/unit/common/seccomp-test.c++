// The seccomp builder: its printed form, and what a loaded filter allows, refuses and kills.
#include "helpers/common/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers/common/clock.h"

namespace rea::helper {
namespace {

TEST(SeccompPolicy, DescribesEveryRuleSortedBySyscallWithItsGroup) {
  SeccompPolicy policy("test");
  policy.allow("zeta", "write")
      .allowIf("alpha", "ioctl", argEquals(1, TIOCGWINSZ, "TIOCGWINSZ"))
      .deny("beta", "openat", EACCES)
      .allow("gamma", "write");  // a second group asking for write changes nothing
  EXPECT_EQ(kj::str(policy.describe()),
            "ioctl             allow         arg1 == TIOCGWINSZ          (alpha)\n"
            "openat            errno EACCES  -                           (beta)\n"
            "write             allow         -                           (zeta)\n"
            "*default*         kill-process\n");
}

TEST(SeccompPolicy, RejectsUnknownSyscallsAndConflictingActions) {
  SeccompPolicy policy("test");
  EXPECT_ANY_THROW(policy.allow("x", "no_such_syscall"));
  policy.allow("x", "openat");
  EXPECT_ANY_THROW(policy.deny("y", "openat", EPERM));
  EXPECT_ANY_THROW(policy.allowIf("y", "openat", argEquals(1, 0, "zero")));
}

TEST(SeccompPolicy, TheBaselineKeepsMemoryClocksAndStderrWorking) {
  EXPECT_EXIT(
      {
        SeccompPolicy("test").baseline().load();
        auto* block = static_cast<char*>(malloc(1 << 20));
        block[0] = 1;
        free(block);
        (void)monotonicNowNs();  // the helpers' clock (clock.h)
        const char text[] = "still alive\n";
        if (write(STDERR_FILENO, text, sizeof(text) - 1) < 0) _exit(1);
        _exit(0);
      },
      testing::ExitedWithCode(0), "still alive");
}

TEST(SeccompPolicy, AnUnlistedSyscallKillsTheProcess) {
  EXPECT_EXIT(
      {
        SeccompPolicy("test").baseline().load();
        getppid();
        _exit(0);
      },
      testing::KilledBySignal(SIGSYS), "");
}

TEST(SeccompPolicy, AnArgumentRuleAllowsOnlyItsValue) {
  auto policy = []() {
    SeccompPolicy policy("test");
    policy.baseline().allowIf("tty", "ioctl", argEquals(1, FIONREAD, "FIONREAD"));
    return policy;
  };
  EXPECT_EXIT(
      {
        policy().load();
        int n;
        ioctl(STDERR_FILENO, FIONREAD, &n);
        _exit(0);
      },
      testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        policy().load();
        int flags = 1;
        ioctl(STDERR_FILENO, FIONBIO, &flags);
        _exit(0);
      },
      testing::KilledBySignal(SIGSYS), "");
}

TEST(SeccompPolicy, ADeniedSyscallFailsWithItsErrno) {
  EXPECT_EXIT(
      {
        SeccompPolicy("test").baseline().deny("probe", "openat", EACCES).load();
        int fd = open("/", O_RDONLY);
        _exit(fd == -1 && errno == EACCES ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST(SeccompPolicy, ExecutableMemoryIsRefused) {
  EXPECT_EXIT(
      {
        SeccompPolicy("test").baseline().load();
        mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        _exit(0);
      },
      testing::KilledBySignal(SIGSYS), "");
}

#ifndef NDEBUG
TEST(SeccompPolicy, DebugModeNamesTheSyscallAndExits159) {
  EXPECT_EXIT(
      {
        setenv("REA_SECCOMP_DEBUG", "1", 1);
        SeccompPolicy("test").baseline().load();
        getppid();
        _exit(0);
      },
      testing::ExitedWithCode(159), "rea-test: seccomp: syscall 110 \\(getppid\\) not allowed");
}
#endif

}  // namespace
}  // namespace rea::helper
