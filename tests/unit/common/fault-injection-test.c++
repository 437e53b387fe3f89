#include "helpers/common/fault-injection.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rea::helper {
namespace {

TEST(FaultInjection, ParsesHelperFaultAndMoment) {
  auto plan = parseFaultPlan("sampler:stall:settle");
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->helper, "sampler");
  EXPECT_EQ(plan->fault, Fault::STALL);
  EXPECT_EQ(plan->moment, FaultMoment::SETTLE);
  EXPECT_EQ(parseFaultPlan("pty:malformed:first-batch")->moment, FaultMoment::FIRST_BATCH);
  EXPECT_EQ(parseFaultPlan("pty:exit0:mid-run")->fault, Fault::EXIT0);
  // A test's tag is not part of the plan.
  auto tagged = parseFaultPlan("replay:abort:stop@4711-3");
  ASSERT_TRUE(tagged.has_value());
  EXPECT_EQ(tagged->helper, "replay");
  EXPECT_EQ(tagged->fault, Fault::ABORT);
  EXPECT_EQ(tagged->moment, FaultMoment::STOP);
}

TEST(FaultInjection, RejectsAnythingElse) {
  for (const char* text :
       {"", "pty", "pty:kill", ":kill:start", "pty:explode:start", "pty:kill:later",
        "pty:kill:start:extra", "pty:kill@start", "@pty:kill:start"}) {
    EXPECT_FALSE(parseFaultPlan(text).has_value()) << text;
  }
}

// Runs armFaults + faultPoint in a child with REA_TEST_FAULT set; returns its wait status.
int runChild(const char* plan, const char* helper, FaultMoment reached) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("REA_TEST_FAULT", plan, 1);
    armFaults(helper);
    faultPoint(reached);
    _exit(takeMalformed() ? 42 : 7);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST(FaultInjection, PerformsTheArmedFaultAtItsMomentOnly) {
  int killed = runChild("pty:kill:first-batch", "pty", FaultMoment::FIRST_BATCH);
  EXPECT_TRUE(WIFSIGNALED(killed) && WTERMSIG(killed) == SIGKILL);
  int aborted = runChild("pty:abort:start", "pty", FaultMoment::START);
  EXPECT_TRUE(WIFSIGNALED(aborted) && WTERMSIG(aborted) == SIGABRT);
  int exited = runChild("pty:exit0:settle", "pty", FaultMoment::SETTLE);
  EXPECT_TRUE(WIFEXITED(exited) && WEXITSTATUS(exited) == 0);
  int malformed = runChild("pty:malformed:stop", "pty", FaultMoment::STOP);
  EXPECT_TRUE(WIFEXITED(malformed) && WEXITSTATUS(malformed) == 42);
  // Another helper's plan, or another moment: nothing happens.
  int other = runChild("sampler:kill:start", "pty", FaultMoment::START);
  EXPECT_TRUE(WIFEXITED(other) && WEXITSTATUS(other) == 7);
  int tagged = runChild("pty:kill:start@test42.", "pty", FaultMoment::START);
  EXPECT_TRUE(WIFSIGNALED(tagged) && WTERMSIG(tagged) == SIGKILL);
  int notYet = runChild("pty:kill:stop", "pty", FaultMoment::SETTLE);
  EXPECT_TRUE(WIFEXITED(notYet) && WEXITSTATUS(notYet) == 7);
}

TEST(FaultInjection, AStallBlocksUntilKilled) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("REA_TEST_FAULT", "pty:stall:start", 1);
    armFaults("pty");
    faultPoint(FaultMoment::START);
    _exit(7);
  }
  usleep(200 * 1000);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0);  // still blocked
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
}

}  // namespace
}  // namespace rea::helper
