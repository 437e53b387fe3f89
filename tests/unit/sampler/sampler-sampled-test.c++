// Real processes under a ProcessObserver forced into sampled mode (B §6.8 with the B §12
// fixes): no cgroup, no proc connector. Each test ends with no run-token carrier left.

#include "helpers/sampler/process-observer.h"

#include <set>

#include <gtest/gtest.h>

#include "helpers/common/system/proc-stat.h"
#include "tests/unit/sampler-test-support.h"

namespace rea::helper {
namespace {

using testing::expectNothingLeft;
using testing::freshToken;
using testing::isLive;
using testing::RecordingSink;
using testing::runFor;
using testing::spawnTarget;
using testing::waitForExit;

// A SIGKILLed process may still be in its exit for a moment after cleanup saw it go (its
// environment already unreadable, not yet a zombie; slow on a loaded machine): it must end
// within a few seconds.
bool endsSoon(pid_t pid) {
  for (int i = 0; i < 500 && isLive(pid); ++i) {
    usleep(10000);
  }
  return !isLive(pid);
}

class SampledObserver : public ::testing::Test {
 protected:
  ~SampledObserver() noexcept override {}

  void SetUp() override {
    testing::adoptOrphans();
    token = freshToken();
    makeObserver(1000);
  }
  void TearDown() override {
    observer = nullptr;
    testing::killCarriers(token);
    testing::reapChildren();
    expectNothingLeft(token, "");
  }

  void makeObserver(uint32_t maxProcesses) {
    observer = nullptr;
    observer = kj::heap<ProcessObserver>(ObserverConfig{token, maxProcesses, true, true},
                                         io.provider->getTimer(), io.unixEventPort, sink);
  }

  pid_t awaitCommand(const std::string& command) {
    for (int i = 0; i < 500; ++i) {
      auto rows = sink.withCommand(command);
      if (!rows.empty()) return rows.front().pid;
      runFor(io, 10);
    }
    return 0;
  }

  const ProcessFinding* findSignalled(const CleanupReport& report, pid_t pid) {
    for (const auto& finding : report.signalled) {
      if (finding.pid == pid) return &finding;
    }
    return nullptr;
  }

  kj::AsyncIoContext io = kj::setupAsyncIo();
  RecordingSink sink;
  std::string token;
  kj::Own<ProcessObserver> observer;
};

TEST_F(SampledObserver, TheSwitchForcesSampledModeWithoutACgroup) {
  EXPECT_EQ(observer->mode(), ObservationMode::SAMPLED);
  EXPECT_EQ(observer->sampledReason(), "sampling forced");
  EXPECT_TRUE(observer->cgroup() == nullptr);
  EXPECT_STREQ(observationModeName(observer->mode()), "sampled");
}

TEST_F(SampledObserver, SamplesTheTreeOnceTheRootIsInitialised) {
  auto target = spawnTarget(*observer, token, {"/bin/sh", "-c", "/bin/sleep 0.4; exit 3"});
  observer->start(target.pid);
  EXPECT_EQ(WEXITSTATUS(waitForExit(io, target)), 3);
  auto settlement = observer->settle(100).wait(io.waitScope);
  EXPECT_EQ(settlement.state, Settlement::State::QUIESCED);
  EXPECT_GE(settlement.elapsedMs, 50) << "two empty observations 50 ms apart";
  EXPECT_FALSE(observer->stop());

  ASSERT_FALSE(sink.records.empty());
  // The first row is the exec'd root, never the launcher's image (this test binary).
  EXPECT_EQ(sink.records.front().pid, target.pid);
  EXPECT_EQ(sink.records.front().command, "/bin/sh -c /bin/sleep 0.4; exit 3");
  for (const auto& record : sink.records) {
    EXPECT_EQ(record.command.find("unit-sampler"), std::string::npos) << record.command;
  }
  auto sleeps = sink.withCommand("/bin/sleep 0.4");
  ASSERT_EQ(sleeps.size(), 1u) << "an unchanged process is recorded once";
  EXPECT_EQ(sleeps[0].ppid, target.pid);
  EXPECT_EQ(sleeps[0].pgid, target.pid);
  EXPECT_EQ(sleeps[0].sid, target.pid);
  EXPECT_EQ(sink.records.front().ppid, getpid());
  for (size_t i = 1; i < sink.records.size(); ++i) {
    EXPECT_LE(sink.records[i - 1].atNs, sink.records[i].atNs);
  }
  auto report = observer->cleanup().wait(io.waitScope);
  EXPECT_TRUE(report.complete) << report.problem;
  EXPECT_TRUE(report.signalled.empty());
  EXPECT_FALSE(report.cgroupRemoved);
}

TEST_F(SampledObserver, ASettleTimeOfZeroIsAliveAtDeadlineEvenWhenNothingIsAlive) {
  // The baseline's quirk (B §11.6): one observation fits, quiesced needs two.
  auto target = spawnTarget(*observer, token, {"/bin/true"});
  observer->start(target.pid);
  waitForExit(io, target);
  auto settlement = observer->settle(0).wait(io.waitScope);
  EXPECT_EQ(settlement.state, Settlement::State::ALIVE_AT_DEADLINE);
  observer->stop();
  EXPECT_TRUE(observer->cleanup().wait(io.waitScope).complete);
}

TEST_F(SampledObserver, TheProcessLimitMakesSamplesPartial) {
  makeObserver(2);
  auto target =
      spawnTarget(*observer, token,
                  {"/bin/sh", "-c", "/bin/sleep 0.4 & /bin/sleep 0.41 & /bin/sleep 0.42 & wait"});
  observer->start(target.pid);
  waitForExit(io, target);
  observer->settle(100).wait(io.waitScope);
  EXPECT_TRUE(observer->stop());
  EXPECT_EQ(sink.records.size(), 2u);
  EXPECT_TRUE(observer->cleanup().wait(io.waitScope).complete);
}

TEST_F(SampledObserver, ObservedLeadersAreCleanedAndTheirEscapeNamed) {
  auto target = spawnTarget(
      *observer, token,
      {"/bin/sh", "-c", "/usr/bin/setsid /bin/sleep 31 & /bin/sleep 30 & /bin/sleep 0.3"});
  observer->start(target.pid);
  pid_t escapee = awaitCommand("/bin/sleep 31");
  pid_t stayer = awaitCommand("/bin/sleep 30");
  ASSERT_NE(escapee, 0);
  ASSERT_NE(stayer, 0);
  waitForExit(io, target);
  auto groups = observer->observedGroups();
  EXPECT_EQ(groups.count(target.pid), 1u);
  EXPECT_EQ(groups.count(escapee), 1u) << "the escapee leads its own group";

  auto settlement = observer->settle(100).wait(io.waitScope);
  EXPECT_EQ(settlement.state, Settlement::State::ALIVE_AT_DEADLINE);
  observer->stop();
  auto report = observer->cleanup().wait(io.waitScope);
  EXPECT_TRUE(report.complete) << report.problem;
  EXPECT_FALSE(report.usedCgroupKill);
  auto escaped = findSignalled(report, escapee);
  ASSERT_NE(escaped, nullptr);
  EXPECT_EQ(escaped->escape, Escape::NEW_SESSION);
  auto stayed = findSignalled(report, stayer);
  ASSERT_NE(stayed, nullptr);
  EXPECT_EQ(stayed->escape, Escape::NONE);
  EXPECT_TRUE(endsSoon(escapee));
  EXPECT_TRUE(endsSoon(stayer));
}

TEST_F(SampledObserver, AnUnobservedDaemonIsFoundByItsTokenAndNamed) {
  // The intermediate exits at once; whether a pass saw the daemon or not, cleanup finds it.
  auto target = spawnTarget(*observer, token,
                            {"/bin/sh", "-c", "( /usr/bin/setsid /bin/sleep 33 & ); exit 0"});
  observer->start(target.pid);
  waitForExit(io, target);
  pid_t daemon = 0;
  for (int i = 0; i < 200 && daemon == 0; ++i) {
    auto carriers = findTokenCarriers(token);
    if (!carriers.empty()) daemon = carriers.front();
    runFor(io, 5);
  }
  ASSERT_NE(daemon, 0);
  observer->settle(100).wait(io.waitScope);
  observer->stop();
  auto report = observer->cleanup().wait(io.waitScope);
  EXPECT_TRUE(report.complete) << report.problem;
  auto finding = findSignalled(report, daemon);
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->escape, Escape::NONE);
  EXPECT_EQ(finding->command, "/bin/sleep 33");
  EXPECT_EQ(report.escapees().size(), 1u);
  // SIGKILL is delivered asynchronously: give the kernel a moment to end it.
  for (int i = 0; i < 100 && isLive(daemon); ++i)
    usleep(10 * 1000);
  EXPECT_TRUE(endsSoon(daemon));
}

TEST_F(SampledObserver, AnEnvironmentScrubbingGroupMemberIsReportedAndNeverSignalled) {
  auto target = spawnTarget(*observer, token,
                            {"/bin/sh", "-c", "/usr/bin/env -i /bin/sleep 30 & /bin/sleep 0.3"});
  observer->start(target.pid);
  waitForExit(io, target);
  auto settlement = observer->settle(100).wait(io.waitScope);
  EXPECT_EQ(settlement.state, Settlement::State::UNVERIFIABLE);
  ASSERT_EQ(settlement.unverified.size(), 1u);
  pid_t scrubbed = settlement.unverified[0].pid;
  observer->stop();
  auto report = observer->cleanup().wait(io.waitScope);
  EXPECT_FALSE(report.complete);
  EXPECT_EQ(report.problem, "group contains an unowned or PID-reused process");
  ASSERT_EQ(report.unowned.size(), 1u);
  EXPECT_EQ(report.unowned[0].pid, scrubbed);
  EXPECT_EQ(report.unowned[0].command, "/bin/sleep 30");
  EXPECT_TRUE(report.signalled.empty());
  EXPECT_TRUE(isLive(scrubbed)) << "the unowned process must still be alive";
  kill(scrubbed, SIGKILL);
}

TEST_F(SampledObserver, ZombiesAreIgnored) {
  auto target =
      spawnTarget(*observer, token,
                  {"/bin/sh", "-c", "( /bin/sleep 0.05 & exec /bin/sleep 30 ) & /bin/sleep 0.3"});
  observer->start(target.pid);
  pid_t holder = awaitCommand("/bin/sleep 30");
  ASSERT_NE(holder, 0);
  // The root stays an unreaped zombie (its parent, this test, does not wait yet).
  siginfo_t info{};
  do {
    runFor(io, 10);
    info.si_pid = 0;
    waitid(P_PID, target.pid, &info, WEXITED | WNOHANG | WNOWAIT);
  } while (info.si_pid == 0);
  runFor(io, 100);
  auto settlement = observer->settle(100).wait(io.waitScope);
  EXPECT_EQ(settlement.state, Settlement::State::ALIVE_AT_DEADLINE);
  observer->stop();
  auto report = observer->cleanup().wait(io.waitScope);
  EXPECT_TRUE(report.complete) << report.problem;
  ASSERT_EQ(report.signalled.size(), 1u);
  EXPECT_EQ(report.signalled[0].pid, holder);
  waitpid(target.pid, nullptr, 0);
}

}  // namespace
}  // namespace rea::helper
