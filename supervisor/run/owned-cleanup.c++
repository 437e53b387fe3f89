#include "supervisor/run/owned-cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <kj/debug.h>

#include "helpers/common/system/capture-cgroup.h"
#include "helpers/common/system/capture-scope.h"
#include "helpers/common/system/cgroup-mounts.h"
#include "helpers/common/system/ownership.h"
#include "helpers/common/system/proc-stat.h"
#include "helpers/common/system/sleep.h"

namespace rea::supervisor {
using helper::sleepMs;

namespace {

const char UNOWNED[] = "group contains an unowned or PID-reused process";
const char NOT_INSPECTED[] = "process group could not be inspected";
const char NOT_REMOVED[] = "capture cgroup could not be removed";

void note(OwnedCleanup& result, const char* problem) {
  if (result.complete) {
    result.complete = false;
    result.problem = problem;
  }
}

void cleanUpCgroup(OwnedCleanup& result, const std::string& path, const std::string& runToken) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) note(result, NOT_INSPECTED);  // ENOENT: already removed
    return;
  }
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() {
                 // The destructor is the verified last resort: kill what carries the token
                 // (cgroup.kill only when every member does), then rmdir.
                 helper::CaptureCgroup group(path, runToken, kj::AutoCloseFd(fd));
                 for (pid_t pid : group.members()) {
                   auto ownership = helper::checkRunToken(pid, runToken);
                   if (ownership == helper::Ownership::OWNED) {
                     ++result.signalled;
                   } else if (ownership != helper::Ownership::GONE) {
                     ++result.unowned;
                     note(result, UNOWNED);
                   }
                 }
               })) {
    KJ_LOG(WARNING, "fallback cleanup of the capture cgroup failed", *e);
    note(result, NOT_INSPECTED);
  }
  if (access(path.c_str(), F_OK) == 0) note(result, NOT_REMOVED);
}

void cleanUpRootGroup(OwnedCleanup& result, const std::string& runToken, pid_t rootPid) {
  helper::GroupScope scope({rootPid});
  for (int round = 0; round < 50; ++round) {
    std::vector<helper::ProcStat> members;
    KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { members = scope.liveMembers(); })) {
      note(result, NOT_INSPECTED);
      return;
    }
    bool ownedLeft = false;
    for (const auto& member : members) {
      auto process = helper::inspectProcess(member.pid, runToken);
      switch (process.getOwnership()) {
        case helper::Ownership::OWNED:
          if (process.kill()) ++result.signalled;
          ownedLeft = true;
          break;
        case helper::Ownership::GONE:
          break;
        default:
          if (round == 0) ++result.unowned;
          note(result, UNOWNED);
          break;
      }
    }
    if (!ownedLeft) return;
    sleepMs(10);
  }
  note(result, "owned process group signal failed");
}

}  // namespace

OwnedCleanup cleanUpOwnedProcesses(const std::string& cgroupPath, const std::string& runToken,
                                   pid_t rootPid) {
  OwnedCleanup result;
  if (!cgroupPath.empty()) {
    cleanUpCgroup(result, cgroupPath, runToken);
  } else if (!runToken.empty()) {
    // The helper may have made the group before it could tell us (lost or cancelled during
    // prepare): look where it would be.
    for (const auto& path : helper::captureCgroupCandidates(runToken)) {
      if (access(path.c_str(), F_OK) == 0) cleanUpCgroup(result, path, runToken);
    }
  }
  if (rootPid > 0) cleanUpRootGroup(result, runToken, rootPid);
  return result;
}

namespace {

// An absolute path without ".", ".." or empty components, inside `mount`, whose last component
// is "rea-<runToken>".
bool isRunTokenGroupUnder(const std::string& path, const std::string& runToken,
                          kj::Maybe<std::string> mountFound) {
  if (runToken.empty() || path.empty() || path[0] != '/') return false;
  std::string name = "rea-" + runToken;
  if (path.size() <= name.size() + 1 ||
      path.compare(path.size() - name.size(), name.size(), name) != 0 ||
      path[path.size() - name.size() - 1] != '/') {
    return false;
  }
  size_t begin = 1;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(begin, end - begin);
    if (part.empty() || part == "." || part == "..") return false;
    begin = end + 1;
  }
  std::string mount;
  KJ_IF_MAYBE (found, mountFound) {
    mount = *found;
  } else {
    return false;
  }
  if (mount == "/") return true;
  return path.compare(0, mount.size(), mount) == 0 && path.size() > mount.size() &&
         path[mount.size()] == '/';
}

}  // namespace

bool isCaptureCgroupPath(const std::string& path, const std::string& runToken) {
  return isRunTokenGroupUnder(path, runToken, helper::findCgroup2Mount());
}

bool isPidsGroupPath(const std::string& path, const std::string& runToken) {
  return isRunTokenGroupUnder(path, runToken, helper::findCgroup1Mount("pids"));
}

}  // namespace rea::supervisor
