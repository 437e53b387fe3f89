// Ownership verification and PID-reuse safety of the sampler (B §6.7.1, B §12), with real
// processes. PID reuse is staged for real where the kernel lets a test pick the next pid
// (/proc/sys/kernel/ns_last_pid, root only); otherwise those tests skip.

#include "helpers/sampler/ownership.h"

#include <gtest/gtest.h>

#include "helpers/sampler/cleanup.h"
#include "helpers/sampler/process-observer.h"
#include "tests/unit/sampler-test-support.h"

namespace rea::helper {
namespace {

using testing::forkWithPid;
using testing::freshToken;
using testing::isLive;
using testing::spawnSleeper;

std::string environ(std::initializer_list<std::string> entries) {
  std::string text;
  for (const auto& entry : entries) {
    text += entry;
    text += '\0';
  }
  return text;
}

void reap(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(SamplerOwnership, ParsesTheEnvironmentAsTheBaselineDoes) {
  EXPECT_EQ(ownershipOfEnviron(environ({"A=1", "REA_PROCESS_RUN_ID=tok", "B=2"}), "tok"),
            Ownership::OWNED);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=tok-1"}), "tok"),
            Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=to"}), "tok"),
            Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=tok=x"}), "tok"),
            Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID"}), "tok"), Ownership::TOKEN_MISSING);
  EXPECT_EQ(ownershipOfEnviron(environ({"=REA_PROCESS_RUN_ID=tok"}), "tok"),
            Ownership::TOKEN_MISSING);
  EXPECT_EQ(ownershipOfEnviron(environ({"XREA_PROCESS_RUN_ID=tok"}), "tok"),
            Ownership::TOKEN_MISSING);
  EXPECT_EQ(ownershipOfEnviron("", "tok"), Ownership::TOKEN_MISSING);
  // A later entry overrides an earlier one, as when the baseline builds its record.
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=tok", "REA_PROCESS_RUN_ID=x"}), "tok"),
            Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=x", "REA_PROCESS_RUN_ID=tok"}), "tok"),
            Ownership::OWNED);
  // No trailing NUL on the last entry.
  EXPECT_EQ(ownershipOfEnviron("REA_PROCESS_RUN_ID=tok", "tok"), Ownership::OWNED);
}

TEST(SamplerOwnership, ChecksLiveZombieAndVanishedProcesses) {
  std::string token = freshToken();
  pid_t owned = spawnSleeper(token.c_str());
  pid_t other = spawnSleeper("someone-else");
  pid_t bare = spawnSleeper(nullptr);
  EXPECT_EQ(checkRunToken(owned, token), Ownership::OWNED);
  EXPECT_EQ(checkRunToken(other, token), Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(checkRunToken(bare, token), Ownership::TOKEN_MISSING);
  auto carriers = findTokenCarriers(token);
  ASSERT_EQ(carriers.size(), 1u);
  EXPECT_EQ(carriers[0], owned);

  kill(owned, SIGKILL);
  siginfo_t info{};
  waitid(P_PID, owned, &info, WEXITED | WNOWAIT);  // a zombie now
  EXPECT_EQ(checkRunToken(owned, token), Ownership::GONE);
  EXPECT_EQ(inspectProcess(owned, token).getOwnership(), Ownership::GONE);
  EXPECT_TRUE(findTokenCarriers(token).empty());
  waitpid(owned, nullptr, 0);
  EXPECT_EQ(checkRunToken(owned, token), Ownership::GONE);
  reap(other);
  reap(bare);
}

TEST(SamplerOwnership, OnlyVerifiedProcessesCanBeSignalled) {
  pid_t other = spawnSleeper("someone-else");
  auto inspected = inspectProcess(other, "mine");
  EXPECT_EQ(inspected.getOwnership(), Ownership::TOKEN_DIFFERENT);
  kj::Maybe<kj::Exception> failure = kj::runCatchingExceptions([&]() { inspected.kill(); });
  EXPECT_TRUE(failure != nullptr);
  EXPECT_TRUE(isLive(other));
  reap(other);
}

TEST(SamplerOwnership, AnInspectedProcessNeverSignalsTheProcessThatRecycledItsPid) {
  std::string token = freshToken();
  pid_t original = spawnSleeper(token.c_str());
  auto inspected = inspectProcess(original, token);
  ASSERT_EQ(inspected.getOwnership(), Ownership::OWNED);
  reap(original);  // gone behind the sampler's back; its pid is free again

  pid_t stranger = forkWithPid(original, []() {
    char env[] = "REA_PROCESS_RUN_ID=someone-else";
    char* envp[] = {env, nullptr};
    execle("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr), envp);
  });
  if (stranger < 0) GTEST_SKIP() << "could not stage PID reuse on this machine";
  ASSERT_EQ(stranger, original);
  EXPECT_FALSE(inspected.kill()) << "the pidfd names the dead process, not the stranger";
  EXPECT_TRUE(isLive(stranger));
  reap(stranger);
}

TEST(SamplerOwnership, AForeignMemberOfTheRootGroupIsReportedAndNeverSignalled) {
  auto io = kj::setupAsyncIo();
  std::string token = freshToken();
  pid_t root = spawnSleeper(token.c_str());
  pid_t foreign = spawnSleeper("someone-else", root);
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
  EXPECT_TRUE(isLive(foreign)) << "the foreign process must still be alive";
  reap(foreign);
}

TEST(SamplerOwnership, ARecycledLeaderPidNeverMakesSampledCleanupSignalAStranger) {
  testing::adoptOrphans();
  auto io = kj::setupAsyncIo();
  testing::RecordingSink sink;
  std::string token = freshToken();
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
  pid_t stranger = forkWithPid(leader, []() {
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
  EXPECT_TRUE(isLive(stranger)) << "the stranger must still be alive";
  reap(stranger);
  testing::reapChildren();
  testing::expectNothingLeft(token, "");
}

}  // namespace
}  // namespace rea::helper
