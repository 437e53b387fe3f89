// Reading a process's /proc files (helpers/common/system/proc-stat.h): /proc/PID/stat and
// cmdline are the target's bytes, parsed without trusting a length or a field count.

#include "helpers/common/system/proc-stat.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/unit/system-test-support.h"

namespace rea::helper {
namespace {

const std::string STAT_TAIL = " 0 0 0 0 0 0 0 0 0 0 0 20 0 1 0 123456 0 0";

TEST(ProcStat, ParsesTheFieldsAfterTheLastParenthesis) {
  auto stat = KJ_ASSERT_NONNULL(parseStat(42, "42 (my (odd) name) S 7 42 40" + STAT_TAIL));
  EXPECT_EQ(stat.pid, 42);
  EXPECT_EQ(stat.comm, "my (odd) name");
  EXPECT_EQ(stat.state, 'S');
  EXPECT_EQ(stat.ppid, 7);
  EXPECT_EQ(stat.pgid, 42);
  EXPECT_EQ(stat.sid, 40);
  EXPECT_EQ(stat.startTime, 123456u);
  EXPECT_FALSE(stat.isZombie());
  EXPECT_TRUE(KJ_ASSERT_NONNULL(parseStat(42, "42 (z) Z 7 42 40" + STAT_TAIL)).isZombie());
}

TEST(ProcStat, AcceptsAGroupAndSessionLedFromOutsideThePidNamespace) {
  // In a container the session leader often lives in the parent namespace: /proc shows 0.
  auto stat = KJ_ASSERT_NONNULL(parseStat(42, "42 (x) S 7 0 0" + STAT_TAIL));
  EXPECT_EQ(stat.pgid, 0);
  EXPECT_EQ(stat.sid, 0);
}

TEST(ProcStat, RejectsWhatIsNotAProcess) {
  EXPECT_TRUE(parseStat(42, "") == nullptr);
  EXPECT_TRUE(parseStat(42, "42 (x) S 7 42") == nullptr);                  // truncated
  EXPECT_TRUE(parseStat(42, "42 (x) S 7 -2 40" + STAT_TAIL) == nullptr);   // pgrp < 0
  EXPECT_TRUE(parseStat(42, "42 (x) S 7 42 -3" + STAT_TAIL) == nullptr);   // session < 0
  EXPECT_TRUE(parseStat(42, "42 (x) S -1 42 40" + STAT_TAIL) == nullptr);  // ppid < 0
  EXPECT_TRUE(parseStat(42, "42 (x) S 7x 42 40" + STAT_TAIL) == nullptr);  // not a number
  EXPECT_TRUE(parseStat(42, "42 x) S 7 42 40" + STAT_TAIL) == nullptr);    // no '('
  EXPECT_TRUE(parseStat(0, "0 (x) S 7 42 40" + STAT_TAIL) == nullptr);     // pid 0
}

TEST(ProcStat, ReadsThisProcess) {
  auto stat = KJ_ASSERT_NONNULL(readStat(getpid()));
  EXPECT_EQ(stat.ppid, getppid());
  EXPECT_EQ(stat.pgid, getpgrp());
  EXPECT_EQ(stat.sid, getsid(0));
  auto command = KJ_ASSERT_NONNULL(readCommand(getpid()));
  EXPECT_NE(command.find("unit-system"), std::string::npos);
  EXPECT_TRUE(readStat(99999999) == nullptr);
  EXPECT_TRUE(readCommand(99999999) == nullptr);
  EXPECT_TRUE(readChildren(99999999) == nullptr);
  EXPECT_EQ(readProcFile("/proc/99999999/stat").status, ProcRead::GONE);
}

TEST(ProcStat, ListsChildrenOfEveryThread) {
  pid_t child = testing::spawnSleeper("x");
  auto children = KJ_ASSERT_NONNULL(readChildren(getpid()));
  EXPECT_NE(std::find(children.begin(), children.end(), child), children.end());
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

TEST(ProcStat, TurnsCmdlineIntoACommand) {
  EXPECT_EQ(commandFromCmdline(std::string("/bin/sh\0-c\0echo hi\0", 20)), "/bin/sh -c echo hi");
  EXPECT_EQ(commandFromCmdline(""), "");
  EXPECT_EQ(commandFromCmdline(std::string("\0\0", 2)), "");
  EXPECT_EQ(commandFromCmdline(" \tx y\n"), "x y");
}

}  // namespace
}  // namespace rea::helper
