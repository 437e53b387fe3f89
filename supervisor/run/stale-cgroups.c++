#include "supervisor/run/stale-cgroups.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <set>

#include "helpers/common/system/cgroup-mounts.h"
#include "helpers/common/system/cgroup-owner.h"
#include "helpers/common/system/sleep.h"

namespace rea::supervisor {
using helper::sleepMs;

namespace {

std::optional<std::string> readOwnerRecord(const std::string& path) {
  char buffer[128];
  ssize_t n = getxattr(path.c_str(), helper::CGROUP_OWNER_XATTR, buffer, sizeof(buffer));
  if (n < 0) return std::nullopt;
  return std::string(buffer, static_cast<size_t>(n));
}

// cgroup.kill, then rmdir until the group is gone (EBUSY while members are still dying).
// Returns nullopt on success, else why not.
std::optional<std::string> removeGroup(const std::string& path) {
  constexpr int ATTEMPTS = 100;  // 20 ms apart: ~2 s
  for (int attempt = 0; attempt < ATTEMPTS; ++attempt) {
    if (rmdir(path.c_str()) == 0 || errno == ENOENT) return std::nullopt;
    int error = errno;
    if (error != EBUSY) return std::string("rmdir: ") + strerror(error);
    if (attempt % 25 == 0) {
      // Populated (or holding a child group): kill every member, again every half second in
      // case something was forked during the write.
      int fd = open((path + "/cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT) continue;  // removed meanwhile (another rea cleaning up)
      if (fd < 0) return std::string("cannot open cgroup.kill: ") + strerror(errno);
      ssize_t written = write(fd, "1", 1);
      int writeError = errno;
      close(fd);
      if (written != 1 && writeError != ENOENT) {
        return std::string("cgroup.kill: ") + strerror(writeError);
      }
    }
    sleepMs(20);
  }
  return "still busy after cgroup.kill (a child group, or members that do not die)";
}

// The `rea-<run token>` entries of `parent` (none when it cannot be listed).
std::vector<std::string> captureGroupNamesIn(const std::string& parent) {
  std::vector<std::string> names;
  DIR* dir = opendir(parent.c_str());
  if (dir == nullptr) return names;
  while (struct dirent* entry = readdir(dir)) {
    if (helper::isCaptureCgroupName(entry->d_name)) names.push_back(entry->d_name);
  }
  closedir(dir);
  return names;
}

// Issue 18.7: a v1 pids group (helpers/sampler/pids-bound.h) lives inside the life of its
// capture cgroup; one whose capture cgroup is gone is left over. rmdir only takes an empty
// group, so a live capture's is never touched.
void removeOrphanPidsGroups(const std::vector<std::string>& captureParents,
                            StaleCaptureCgroups& result) {
  std::string mount;
  KJ_IF_MAYBE (found, helper::findCgroup1Mount("pids")) {
    mount = *found;
  } else {
    return;
  }
  std::string parent = helper::pidsGroupParent(mount);
  for (const auto& name : captureGroupNamesIn(parent)) {
    bool captureLives = false;
    for (const auto& parent : captureParents) {
      if (access((parent + "/" + name).c_str(), F_OK) == 0) captureLives = true;
    }
    std::string path = parent + "/" + name;
    if (!captureLives && rmdir(path.c_str()) == 0) result.removed.push_back(path);
  }
}

}  // namespace

StaleCaptureCgroups findStaleCaptureCgroups(bool remove) {
  StaleCaptureCgroups result;
  std::string mount;
  KJ_IF_MAYBE (found, helper::findCgroup2Mount()) {
    mount = *found;
  } else {
    return result;
  }
  auto ourNamespace = helper::ownPidNamespace();
  if (!ourNamespace) return result;
  std::set<std::string> seen;
  for (const auto& parent : helper::captureCgroupParents(mount)) {
    for (const auto& name : captureGroupNamesIn(parent)) {
      std::string path = parent + "/" + name;
      struct stat st;
      if (!seen.insert(path).second || lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        continue;
      }
      helper::CgroupFacts facts;
      facts.ownerRecord = readOwnerRecord(path);
      facts.ageSeconds = static_cast<int64_t>(time(nullptr) - st.st_mtime);
      auto verdict = helper::judgeCaptureCgroup(facts, *ourNamespace, helper::processIdentity);
      if (!verdict.stale) continue;
      result.found.push_back({path, verdict.reason});
      if (!remove) continue;
      if (auto problem = removeGroup(path)) {
        result.failed.push_back({path, *problem});
      } else {
        result.removed.push_back(path);
      }
    }
  }
  if (remove) removeOrphanPidsGroups(helper::captureCgroupParents(mount), result);
  return result;
}

}  // namespace rea::supervisor
