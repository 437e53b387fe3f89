// The checkpoint hold with a real capture cgroup and a real process in it (needs root and a
// writable cgroup2 hierarchy; skips otherwise).

#include "supervisor/run/target-freezer.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "helpers/common/system/capture-cgroup.h"
#include "tests/unit/system-test-support.h"

namespace rea::supervisor {
namespace {

using helper::CaptureCgroup;
using helper::testing::freshToken;

std::string frozenLine(const std::string& group) {
  std::ifstream in(group + "/cgroup.events");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("frozen ", 0) == 0) return line;
  }
  return "";
}

// A process of the group that counts as fast as it can in memory shared with us.
class Counter {
 public:
  explicit Counter(CaptureCgroup& group) {
    void* shared = mmap(nullptr, sizeof(std::atomic<uint64_t>), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(shared, MAP_FAILED);
    count = new (shared) std::atomic<uint64_t>(0);
    pid = helper::cloneIntoCgroup(group.dirFd());
    if (pid == 0) {
      for (;;)
        count->fetch_add(1, std::memory_order_relaxed);
    }
    EXPECT_GT(pid, 0);
  }
  ~Counter() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    munmap(count, sizeof(*count));
  }
  uint64_t now() const { return count->load(); }
  bool advancesWithin(int ms) const {
    uint64_t start = now();
    for (int waited = 0; waited < ms; waited += 5) {
      usleep(5000);
      if (now() != start) return true;
    }
    return false;
  }

 private:
  std::atomic<uint64_t>* count = nullptr;
  pid_t pid = -1;
};

kj::Own<CaptureCgroup> makeGroup() {
  auto made = CaptureCgroup::create(freshToken());
  if (made.is<std::string>()) return {};
  return kj::mv(made.get<kj::Own<CaptureCgroup>>());
}

TEST(TargetFreezer, HoldsEveryProcessOfTheGroupStillUntilTheLastHoldIsDropped) {
  auto group = makeGroup();
  if (group.get() == nullptr) GTEST_SKIP() << "no writable cgroup2 hierarchy";
  auto io = kj::setupAsyncIo();
  auto& timer = io.provider->getTimer();
  Counter counter(*group);
  ASSERT_TRUE(counter.advancesWithin(5000));  // running

  auto freezer = KJ_ASSERT_NONNULL(TargetFreezer::open(timer, group->path()));
  auto first = freezer->hold();
  auto second = freezer->hold();
  freezer->whenFrozen().wait(io.waitScope);
  EXPECT_EQ(frozenLine(group->path()), "frozen 1");
  EXPECT_FALSE(counter.advancesWithin(100));

  first = nullptr;  // one hold left: still held
  EXPECT_EQ(frozenLine(group->path()), "frozen 1");
  EXPECT_FALSE(counter.advancesWithin(100));
  auto thawed = freezer->whenThawed();
  EXPECT_FALSE(thawed.poll(io.waitScope));

  second = nullptr;
  EXPECT_TRUE(thawed.poll(io.waitScope));
  thawed.wait(io.waitScope);
  EXPECT_TRUE(counter.advancesWithin(5000));
  EXPECT_EQ(frozenLine(group->path()), "frozen 0");
  EXPECT_FALSE(freezer->broken());
}

TEST(TargetFreezer, WithoutAHoldThereIsNothingToWaitFor) {
  auto group = makeGroup();
  if (group.get() == nullptr) GTEST_SKIP() << "no writable cgroup2 hierarchy";
  auto io = kj::setupAsyncIo();
  auto freezer = KJ_ASSERT_NONNULL(TargetFreezer::open(io.provider->getTimer(), group->path()));
  EXPECT_TRUE(freezer->whenFrozen().poll(io.waitScope));
  EXPECT_TRUE(freezer->whenThawed().poll(io.waitScope));
  EXPECT_EQ(frozenLine(group->path()), "frozen 0");
}

TEST(TargetFreezer, AGroupRemovedUnderItEndsTheHoldingWithoutThrowing) {
  auto group = makeGroup();
  if (group.get() == nullptr) GTEST_SKIP() << "no writable cgroup2 hierarchy";
  auto io = kj::setupAsyncIo();
  auto freezer = KJ_ASSERT_NONNULL(TargetFreezer::open(io.provider->getTimer(), group->path()));
  group = nullptr;  // removed (empty): the files we hold refuse writes now
  auto hold = freezer->hold();
  EXPECT_TRUE(freezer->broken());
  EXPECT_TRUE(freezer->whenFrozen().poll(io.waitScope));
  hold = nullptr;
}

TEST(TargetFreezer, NoCgroupNoFreezer) {
  auto io = kj::setupAsyncIo();
  EXPECT_EQ(TargetFreezer::open(io.provider->getTimer(), ""), nullptr);
  EXPECT_EQ(TargetFreezer::open(io.provider->getTimer(), "/nonexistent/rea-group"), nullptr);
}

}  // namespace
}  // namespace rea::supervisor
