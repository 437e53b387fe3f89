// The capture cgroup with real processes (needs root and a writable cgroup2 hierarchy; skips
// otherwise). Every test removes its group.

#include "helpers/common/system/capture-cgroup.h"

#include <poll.h>
#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>

#include "helpers/common/system/cgroup-mounts.h"
#include "tests/unit/system-test-support.h"

namespace rea::helper {
namespace {

using testing::freshToken;

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Starts `sleep 30` inside the group (clone3), with the given token in its environment.
pid_t sleeperInside(CaptureCgroup& group, const std::string& token) {
  std::string var = "REA_PROCESS_RUN_ID=" + token;
  pid_t pid = cloneIntoCgroup(group.dirFd());
  if (pid == 0) {
    char* envp[] = {var.data(), nullptr};
    execle("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr), envp);
    _exit(127);
  }
  return pid;
}

kj::Own<CaptureCgroup> makeGroup(const std::string& token) {
  auto made = CaptureCgroup::create(token);
  if (made.is<std::string>()) return {};
  return kj::mv(made.get<kj::Own<CaptureCgroup>>());
}

TEST(CaptureCgroup, IsNamedAfterTheTokenAndUsedOnce) {
  std::string token = freshToken();
  auto group = makeGroup(token);
  if (group.get() == nullptr) GTEST_SKIP() << "no writable cgroup2 hierarchy";
  EXPECT_EQ(group->path(), KJ_ASSERT_NONNULL(findCgroup2Mount()) + "/rea-" + token);
  EXPECT_TRUE(exists(group->path()));
  auto second = CaptureCgroup::create(token);
  ASSERT_TRUE(second.is<std::string>());
  EXPECT_NE(second.get<std::string>().find("already exists"), std::string::npos);
  std::string path = group->path();
  group = nullptr;
  EXPECT_FALSE(exists(path));
}

TEST(CaptureCgroup, KnowsItsMembersAndWhenItEmpties) {
  std::string token = freshToken();
  auto group = makeGroup(token);
  if (group.get() == nullptr) GTEST_SKIP() << "no writable cgroup2 hierarchy";
  EXPECT_FALSE(group->populated());
  EXPECT_TRUE(group->members().empty());
  pid_t child = sleeperInside(*group, token);
  EXPECT_TRUE(group->populated());
  EXPECT_EQ(group->members(), std::vector<pid_t>{child});
  group->drainEventsWatch();
  EXPECT_FALSE(group->remove()) << "a populated group cannot be removed";

  group->kill();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  struct pollfd watch = {group->eventsWatchFd(), POLLPRI, 0};
  EXPECT_EQ(poll(&watch, 1, 5000), 1) << "cgroup.events changed";
  EXPECT_TRUE(group->drainEventsWatch());
  EXPECT_FALSE(group->populated());
  EXPECT_TRUE(group->remove());
  EXPECT_TRUE(group->isRemoved());
  EXPECT_TRUE(group->remove()) << "idempotent";
  EXPECT_FALSE(exists(group->path()));
}

// The cgroup v2 path in /proc/PID/cgroup ("0::/path").
std::string cgroupOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 3, "0::") == 0) return line.substr(3);
  }
  return {};
}

TEST(CaptureCgroup, ItsDestructorKillsOnlyOwnedMembersAndReleasesTheOthers) {
  std::string token = freshToken();
  auto group = makeGroup(token);
  if (group.get() == nullptr) GTEST_SKIP() << "no writable cgroup2 hierarchy";
  std::string path = group->path();
  pid_t owned = sleeperInside(*group, token);
  pid_t unowned = sleeperInside(*group, "someone-else");
  for (int i = 0; i < 500 && checkRunToken(unowned, "someone-else") != Ownership::OWNED; ++i) {
    usleep(2000);
  }
  for (int i = 0; i < 500 && checkRunToken(owned, token) != Ownership::OWNED; ++i) {
    usleep(2000);
  }
  std::string inside = cgroupOf(unowned);
  ASSERT_EQ(inside.substr(inside.rfind('/') + 1), "rea-" + token);
  // Only unowned members may be released; an owned one is killed instead.
  EXPECT_ANY_THROW(group->release(inspectProcess(owned, token)));

  group = nullptr;  // the unowned member is moved to the parent group, then the group removed
  int status = 0;
  ASSERT_EQ(waitpid(owned, &status, 0), owned);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(waitpid(unowned, &status, WNOHANG), 0) << "the unowned member must be alive";
  std::string parent = inside.substr(0, inside.rfind('/'));
  EXPECT_EQ(cgroupOf(unowned), parent.empty() ? "/" : parent);
  EXPECT_FALSE(exists(path));

  kill(unowned, SIGKILL);
  waitpid(unowned, nullptr, 0);
}

}  // namespace
}  // namespace rea::helper
