// Who owns a capture cgroup and when a found one is stale (helpers/common/system/cgroup-owner.h):
// the pure judgement with synthetic processes, and the record a real group carries.

#include "helpers/common/system/cgroup-owner.h"

#include <sys/xattr.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/common/system/capture-cgroup.h"
#include "tests/unit/system-test-support.h"

namespace rea::helper {
namespace {

constexpr uint64_t OUR_NS = 4026531836u;

// A process table of one: `pid` alive with `startTime`, every other pid gone.
std::function<ProcessIdentity(pid_t)> onlyAlive(pid_t pid, uint64_t startTime) {
  return [pid, startTime](pid_t asked) -> ProcessIdentity {
    if (asked == pid) return {ProcessIdentity::ALIVE, startTime};
    return {ProcessIdentity::GONE, 0};
  };
}

CgroupFacts recorded(const CgroupOwner& owner, int64_t ageSeconds) {
  return {formatOwnerRecord(owner), ageSeconds};
}

TEST(CgroupOwner, RecordRoundTripsAndRejectsAnythingElse) {
  CgroupOwner owner{4242, 987654321, OUR_NS};
  EXPECT_EQ(formatOwnerRecord(owner), "4242 987654321 4026531836");
  auto parsed = parseOwnerRecord(formatOwnerRecord(owner));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->pid, 4242);
  EXPECT_EQ(parsed->startTime, 987654321u);
  EXPECT_EQ(parsed->pidNamespace, OUR_NS);
  for (const char* bad : {"", "4242 1", "4242 1 2 3", "0 1 2", "-4 1 2", "4242  1 2", "a 1 2",
                          "4242 1 2\n", "99999999999 1 2"}) {
    EXPECT_FALSE(parseOwnerRecord(bad)) << bad;
  }
}

TEST(CgroupOwner, OnlyRunTokenNamesAreCaptureCgroups) {
  EXPECT_TRUE(isCaptureCgroupName("rea-0e0e17f4-72bd-4518-a129-01d672157c0a"));
  EXPECT_FALSE(isCaptureCgroupName("rea-0E0E17F4-72bd-4518-a129-01d672157c0a"));
  EXPECT_FALSE(isCaptureCgroupName("rea-test-230fe0cb-20570d4c"));
  EXPECT_FALSE(isCaptureCgroupName("rea-doctor-probe-1234"));
  EXPECT_FALSE(isCaptureCgroupName("rea-0e0e17f4-72bd-4518-a129-01d672157c0a0"));
  EXPECT_FALSE(isCaptureCgroupName("xea-0e0e17f4-72bd-4518-a129-01d672157c0a"));
  EXPECT_FALSE(isCaptureCgroupName("rea-0e0e17f4/72bd-4518-a129-01d672157c0a"));
}

TEST(CgroupOwner, LiveOwnerKeepsItsGroup) {
  CgroupOwner owner{100, 5000, OUR_NS};
  auto verdict = judgeCaptureCgroup(recorded(owner, 3600), OUR_NS, onlyAlive(100, 5000));
  EXPECT_FALSE(verdict.stale) << verdict.reason;
  EXPECT_NE(verdict.reason.find("alive"), std::string::npos);
}

TEST(CgroupOwner, ExitedOwnerMakesItStale) {
  CgroupOwner owner{100, 5000, OUR_NS};
  auto verdict = judgeCaptureCgroup(recorded(owner, 10), OUR_NS, onlyAlive(7, 1));
  EXPECT_TRUE(verdict.stale);
  EXPECT_EQ(verdict.reason, "owner pid 100 has exited");
}

TEST(CgroupOwner, ARecycledPidDoesNotKeepADeadOwnerAlive) {
  CgroupOwner owner{100, 5000, OUR_NS};
  auto verdict = judgeCaptureCgroup(recorded(owner, 10), OUR_NS, onlyAlive(100, 5001));
  EXPECT_TRUE(verdict.stale);
  EXPECT_NE(verdict.reason.find("another process"), std::string::npos);
}

TEST(CgroupOwner, AnOwnerThatCannotBeInspectedCountsAsAlive) {
  CgroupOwner owner{100, 5000, OUR_NS};
  auto verdict =
      judgeCaptureCgroup(recorded(owner, 3600), OUR_NS, [](pid_t) { return ProcessIdentity{}; });
  EXPECT_FALSE(verdict.stale);
}

TEST(CgroupOwner, AnotherPidNamespaceIsNeverJudged) {
  // Its pid 100 is not our pid 100: even "gone" here says nothing.
  CgroupOwner owner{100, 5000, OUR_NS + 1};
  auto verdict = judgeCaptureCgroup(recorded(owner, 3600), OUR_NS, onlyAlive(7, 1));
  EXPECT_FALSE(verdict.stale);
  EXPECT_NE(verdict.reason.find("another PID namespace"), std::string::npos);
}

TEST(CgroupOwner, YoungGroupsAreNeverTouched) {
  CgroupOwner owner{100, 5000, OUR_NS};
  auto goneOwner = onlyAlive(7, 1);
  EXPECT_FALSE(judgeCaptureCgroup(recorded(owner, 0), OUR_NS, goneOwner).stale);
  EXPECT_FALSE(
      judgeCaptureCgroup(recorded(owner, CGROUP_YOUNG_SECONDS - 1), OUR_NS, goneOwner).stale);
  EXPECT_TRUE(judgeCaptureCgroup(recorded(owner, CGROUP_YOUNG_SECONDS), OUR_NS, goneOwner).stale);
  EXPECT_FALSE(judgeCaptureCgroup({std::nullopt, 1}, OUR_NS, goneOwner).stale);
}

TEST(CgroupOwner, WithoutARecordOnlyAfterAMinute) {
  auto anything = onlyAlive(7, 1);
  EXPECT_FALSE(
      judgeCaptureCgroup({std::nullopt, CGROUP_UNRECORDED_SECONDS - 1}, OUR_NS, anything).stale);
  auto old = judgeCaptureCgroup({std::nullopt, CGROUP_UNRECORDED_SECONDS}, OUR_NS, anything);
  EXPECT_TRUE(old.stale);
  EXPECT_EQ(old.reason, "no owner record and older than a minute");
  // A record we cannot parse is no record.
  EXPECT_FALSE(judgeCaptureCgroup({std::string("garbage"), 30}, OUR_NS, anything).stale);
  EXPECT_TRUE(judgeCaptureCgroup({std::string("garbage"), 61}, OUR_NS, anything).stale);
}

TEST(CgroupOwner, OurProcessesHaveAnIdentity) {
  auto self = processIdentity(getpid());
  ASSERT_EQ(self.state, ProcessIdentity::ALIVE);
  EXPECT_GT(self.startTime, 0u);
  auto parent = ownerRecordForParent();
  ASSERT_TRUE(parent);
  // Our parent, or we ourselves when we are the init of a PID namespace (unshare -p).
  EXPECT_EQ(parent->pid, getppid() > 0 ? getppid() : getpid());
  EXPECT_EQ(parent->pidNamespace, ownPidNamespace().value_or(0));
  EXPECT_EQ(processIdentity(parent->pid).startTime, parent->startTime);
}

TEST(CgroupOwner, ARealCaptureCgroupCarriesItsOwnersRecord) {
  auto made = CaptureCgroup::create(testing::freshToken());
  if (made.is<std::string>()) GTEST_SKIP() << made.get<std::string>();
  auto& group = made.get<kj::Own<CaptureCgroup>>();
  char buffer[128];
  ssize_t n = getxattr(group->path().c_str(), CGROUP_OWNER_XATTR, buffer, sizeof(buffer));
  ASSERT_GT(n, 0) << group->path();
  auto owner = parseOwnerRecord(std::string(buffer, static_cast<size_t>(n)));
  ASSERT_TRUE(owner);
  // The creator's parent (the supervisor, for the sampler), or the creator when it is init.
  EXPECT_EQ(owner->pid, getppid() > 0 ? getppid() : getpid());
  auto verdict = judgeCaptureCgroup({std::string(buffer, static_cast<size_t>(n)), 3600},
                                    ownPidNamespace().value(), processIdentity);
  EXPECT_FALSE(verdict.stale) << verdict.reason;
}

}  // namespace
}  // namespace rea::helper
