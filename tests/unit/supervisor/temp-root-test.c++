#include "supervisor/run/temp-root.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

bool exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

TEST(TempRoot, CreatesAPrivateRootWithAHome) {
  std::string path;
  {
    TempRoot root;
    path = root.path();
    EXPECT_NE(path.find("/rea-process-"), std::string::npos);
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ASSERT_EQ(stat(root.homePath().c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
  }
  EXPECT_FALSE(exists(path));
}

TEST(TempRoot, RemovesNestedUnlistableTreesWithoutFollowingSymlinks) {
  char outside[] = "/tmp/rea-test-outside-XXXXXX";
  ASSERT_NE(mkdtemp(outside), nullptr);
  std::string keep = std::string(outside) + "/keep";
  std::ofstream(keep) << "must survive";
  {
    TempRoot root;
    std::string deep = root.homePath() + "/a/b/c";
    ASSERT_EQ(system(("mkdir -p " + deep).c_str()), 0);
    std::ofstream(deep + "/file") << "x";
    ASSERT_EQ(symlink(outside, (root.homePath() + "/link").c_str()), 0);
    ASSERT_EQ(chmod((root.homePath() + "/a/b").c_str(), 0), 0);
    root.remove();
    EXPECT_FALSE(exists(root.path()));
    root.remove();  // idempotent
  }
  EXPECT_TRUE(exists(keep));
  removeTree(outside);
  EXPECT_FALSE(exists(outside));
}

TEST(TempRoot, AFailedRemovalKeepsItsCause) {
  // Something the supervisor cannot remove: a mount point in HOME (a target with the privilege
  // may leave one). The mount lives in a mount namespace of this test process only.
  if (unshare(CLONE_NEWNS) != 0 ||
      mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    GTEST_SKIP() << "no mount namespace here: " << strerror(errno);
  }
  TempRoot root;
  std::string busy = root.homePath() + "/busy";
  ASSERT_EQ(mkdir(busy.c_str(), 0700), 0);
  ASSERT_EQ(mount("tmpfs", busy.c_str(), "tmpfs", 0, nullptr), 0) << strerror(errno);
  std::optional<std::string> failure = root.tryRemove();
  ASSERT_EQ(umount(busy.c_str()), 0);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->rfind("temporary process root cleanup failed (", 0), 0u) << *failure;
  EXPECT_NE(failure->find(strerror(EBUSY)), std::string::npos) << *failure;
  EXPECT_NE(failure->find("<temporary-root>/home/busy"), std::string::npos) << *failure;
  EXPECT_EQ(failure->find(root.path()), std::string::npos) << *failure;
  EXPECT_FALSE(root.tryRemove());  // the mount gone, the rest goes
  EXPECT_FALSE(exists(root.path()));
}

TEST(TempRoot, HonoursTmpdir) {
  char base[] = "/tmp/rea-test-tmpdir-XXXXXX";
  ASSERT_NE(mkdtemp(base), nullptr);
  const char* old = getenv("TMPDIR");
  std::string saved = old ? old : "";
  setenv("TMPDIR", base, 1);
  {
    TempRoot root;
    EXPECT_EQ(root.path().rfind(std::string(base) + "/rea-process-", 0), 0u);
  }
  if (old)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  removeTree(base);
}

}  // namespace
}  // namespace rea::supervisor

namespace rea::supervisor {
namespace {

TEST(TempRoot, OnlyRootsWithoutALiveOwnerAreStale) {
  char base[] = "/tmp/rea-test-stale-XXXXXX";
  ASSERT_NE(mkdtemp(base), nullptr);
  setenv("TMPDIR", base, 1);
  {
    TempRoot live;
    // A root whose owner died: its lock file exists but nobody holds the lock.
    std::string dead = std::string(base) + "/rea-process-dead01";
    ASSERT_EQ(mkdir(dead.c_str(), 0700), 0);
    std::ofstream(dead + "/.rea-owner") << OWNER_RECORD << "pid 1\n";
    // Look-alikes (issue 18.6): no owner file, an owner file without the record, a record in a
    // directory others may enter. Never ours, however old.
    std::string bare = std::string(base) + "/rea-process-bare01";
    std::string empty = std::string(base) + "/rea-process-empty1";
    std::string open = std::string(base) + "/rea-process-open01";
    for (const auto& dir : {bare, empty, open})
      ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
    ASSERT_EQ(chmod(open.c_str(), 0755), 0);
    std::ofstream(empty + "/.rea-owner") << "";
    std::ofstream(open + "/.rea-owner") << OWNER_RECORD << "pid 1\n";
    // Owner files younger than two seconds may belong to a capture still locking its root.
    auto young = findStaleTempRoots(false);
    EXPECT_TRUE(young.found.empty());
    struct timespec old[2] = {{time(nullptr) - 10, 0}, {time(nullptr) - 10, 0}};
    for (const auto& dir : {dead, empty, open}) {
      ASSERT_EQ(utimensat(AT_FDCWD, (dir + "/.rea-owner").c_str(), old, 0), 0);
    }
    struct timespec older[2] = {{time(nullptr) - 120, 0}, {time(nullptr) - 120, 0}};
    for (const auto& dir : {dead, bare, empty, open}) {
      ASSERT_EQ(utimensat(AT_FDCWD, dir.c_str(), older, 0), 0);
    }

    auto scan = findStaleTempRoots(false);
    ASSERT_EQ(scan.found.size(), 1u);
    EXPECT_EQ(scan.found[0], dead);
    EXPECT_TRUE(scan.removed.empty());

    auto sorted = scan.notOurs;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<std::string>{bare, empty, open}));

    auto clean = findStaleTempRoots(true);
    ASSERT_EQ(clean.removed.size(), 1u);
    EXPECT_FALSE(exists(dead));
    EXPECT_TRUE(exists(live.path()));
    for (const auto& dir : {bare, empty, open})
      EXPECT_TRUE(exists(dir)) << dir;
  }
  unsetenv("TMPDIR");
  removeTree(base);
}

}  // namespace
}  // namespace rea::supervisor
