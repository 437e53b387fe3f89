// The sampler's cleanup signals only what the capture owns, even when pids are recycled
// (B §6.7.1, B §12; the checks themselves: tests/unit/system/ownership-test.c++), with real
// processes. PID reuse is staged for real where the kernel lets a test pick the next pid
// (/proc/sys/kernel/ns_last_pid, root only); otherwise those tests skip.

#include "helpers/sampler/cleanup.h"

#include <gtest/gtest.h>

#include "helpers/sampler/process-observer.h"
#include "tests/unit/sampler-test-support.h"

namespace rea::helper {
namespace {

TEST(SamplerOwnership, AForeignMemberOfTheRootGroupIsReportedAndNeverSignalled) {
  auto io = kj::setupAsyncIo();
  std::string token = testing::freshToken();
  pid_t root = testing::spawnSleeper(token.c_str());
  pid_t foreign = testing::spawnSleeper("someone-else", root);
  GroupScope scope({root});
  auto report = cleanupCapture(io.provider->getTimer(), scope, token, root, [token]() {
                  return findTokenCarriers(token);
                }).wait(io.waitScope);
  EXPECT_FALSE(report.complete);
  EXPECT_EQ(report.problem, "group contains an unowned or PID-reused process");
  ASSERT_EQ(report.signalled.size(), 1u);
  EXPECT_EQ(report.signalled[0].pid, root);
  ASSERT_EQ(report.unowned.size(), 1u);
  EXPECT_EQ(report.unowned[0].pid, foreign);
  EXPECT_EQ(report.unowned[0].ownership, Ownership::TOKEN_DIFFERENT);
  int status = 0;
  EXPECT_EQ(waitpid(root, &status, 0), root);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_TRUE(testing::isLive(foreign)) << "the foreign process must still be alive";
  testing::reap(foreign);
}

TEST(SamplerOwnership, ARecycledLeaderPidNeverMakesSampledCleanupSignalAStranger) {
  testing::adoptOrphans();
  auto io = kj::setupAsyncIo();
  testing::RecordingSink sink;
  std::string token = testing::freshToken();
  ProcessObserver observer(ObserverConfig{token, 1000, true, true}, io.provider->getTimer(),
                           io.unixEventPort, sink);
  auto target = testing::spawnTarget(observer, token,
                                     {"/bin/sh", "-c", "/usr/bin/setsid /bin/sleep 30 & wait"});
  observer.start(target.pid);
  pid_t leader = 0;
  for (int i = 0; i < 500 && leader == 0; ++i) {
    auto rows = sink.withCommand("/bin/sleep 30");
    if (!rows.empty()) leader = rows.front().pid;
    testing::runFor(io, 10);
  }
  ASSERT_NE(leader, 0);
  EXPECT_EQ(observer.observedGroups().count(leader), 1u);

  // The observed leader dies (the root reaps it and exits); a stranger gets its pid and makes
  // it its own group id.
  kill(leader, SIGKILL);
  testing::waitForExit(io, target);
  // Start times count clock ticks (10 ms): let one pass so the stranger's differs.
  usleep(30000);
  pid_t stranger = testing::forkWithPid(leader, []() {
    setpgid(0, 0);
    char env[] = "REA_PROCESS_RUN_ID=someone-else";
    char* envp[] = {env, nullptr};
    execle("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr), envp);
  });
  if (stranger < 0) GTEST_SKIP() << "could not stage PID reuse on this machine";
  for (int i = 0; i < 500 && !(checkRunToken(stranger, "someone-else") == Ownership::OWNED); ++i) {
    usleep(2000);
  }

  // Group `leader` is the stranger's now (its leader has another start time than the observed
  // one): out of scope, so settlement and cleanup see only the root's empty group.
  auto settlement = observer.settle(1000).wait(io.waitScope);
  EXPECT_EQ(settlement.state, Settlement::State::QUIESCED) << settlement.problem;
  observer.stop();
  auto report = observer.cleanup().wait(io.waitScope);
  EXPECT_TRUE(report.complete) << report.problem;
  EXPECT_TRUE(report.signalled.empty());
  EXPECT_TRUE(report.unowned.empty());
  EXPECT_TRUE(testing::isLive(stranger)) << "the stranger must still be alive";
  testing::reap(stranger);
  testing::reapChildren();
  testing::expectNothingLeft(token, "");
}

}  // namespace
}  // namespace rea::helper
