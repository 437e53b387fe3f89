// Where the cgroup hierarchies are mounted (helpers/common/system/cgroup-mounts.h), from
// synthetic /proc/self/mountinfo texts.

#include "helpers/common/system/cgroup-mounts.h"

#include <gtest/gtest.h>

namespace rea::helper {
namespace {

TEST(CgroupMounts, FindsTheCgroup2MountInMountinfo) {
  std::string hybrid =
      "25 30 0:23 / /sys rw,nosuid - sysfs sysfs rw\n"
      "31 25 0:27 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n"
      "32 31 0:28 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
      "33 31 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
  EXPECT_EQ(KJ_ASSERT_NONNULL(findCgroup2Mount(hybrid)), "/sys/fs/cgroup/unified");
  EXPECT_EQ(KJ_ASSERT_NONNULL(
                findCgroup2Mount("40 1 0:30 / /odd\\040place rw shared:9 - cgroup2 none rw\n")),
            "/odd place");
  EXPECT_TRUE(findCgroup2Mount("33 31 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw\n") ==
              nullptr);
  EXPECT_TRUE(findCgroup2Mount("") == nullptr);
}

TEST(CgroupMounts, DecodesTheKernelsEscapesInAMountPoint) {
  // The kernel writes a space, tab, newline and backslash in a mount point as \040 \011 \012
  // \134 (the fields are space-separated); the groups made under it need the real bytes.
  EXPECT_EQ(KJ_ASSERT_NONNULL(findCgroup2Mount(
                "41 1 0:31 / /mnt/my\\040cgroups\\011v2\\134x rw - cgroup2 cgroup2 rw\n")),
            "/mnt/my cgroups\tv2\\x");
  EXPECT_EQ(KJ_ASSERT_NONNULL(findCgroup1Mount(
                "42 1 0:32 / /mnt/pids\\040v1 rw - cgroup cgroup rw,pids\n", "pids")),
            "/mnt/pids v1");
  // Not an escape (a digit beyond octal): kept as written.
  EXPECT_EQ(KJ_ASSERT_NONNULL(findCgroup2Mount("43 1 0:33 / /a\\9x rw - cgroup2 none rw\n")),
            "/a\\9x");
}

const char MOUNTINFO[] =
    "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
    "38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(CgroupMounts, FindsTheV1HierarchyOfAController) {
  EXPECT_EQ(KJ_ASSERT_NONNULL(findCgroup1Mount(MOUNTINFO, "pids")), "/sys/fs/cgroup/pids");
  EXPECT_EQ(KJ_ASSERT_NONNULL(findCgroup1Mount(MOUNTINFO, "cpuacct")),
            "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(findCgroup1Mount(MOUNTINFO, "memory"), nullptr);
  EXPECT_EQ(findCgroup1Mount("40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,pids\n", "pids"),
            nullptr);  // cgroup2 is not a v1 hierarchy
  EXPECT_EQ(findCgroup1Mount("", "pids"), nullptr);
}

}  // namespace
}  // namespace rea::helper
