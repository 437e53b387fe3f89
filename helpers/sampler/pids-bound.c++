#include "helpers/sampler/pids-bound.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "helpers/common/system/cgroup-mounts.h"
#include "helpers/common/system/proc-stat.h"

namespace rea::helper {
namespace {

bool writeWhole(const std::string& path, const std::string& text, int& error) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    error = errno;
    return false;
  }
  ssize_t n;
  do {
    n = write(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  error = n == ssize_t(text.size()) ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return error == 0;
}

bool hasWord(const std::string& text, const std::string& word) {
  std::istringstream words(text);
  std::string each;
  while (words >> each) {
    if (each == word) return true;
  }
  return false;
}

std::string parentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? std::string("/") : path.substr(0, slash);
}

}  // namespace

kj::OneOf<kj::Own<PidsBound>, std::string> PidsBound::apply(const std::string& captureCgroupPath,
                                                            const std::string& runToken,
                                                            uint32_t maxPids) {
  kj::OneOf<kj::Own<PidsBound>, std::string> result;
  std::string limit = std::to_string(maxPids) + "\n";
  int error = 0;
  // cgroup v2: the controller is ours when the parent hands it down.
  auto delegated = readProcFile(parentOf(captureCgroupPath) + "/cgroup.subtree_control");
  if (hasWord(delegated.text, "pids")) {
    if (!writeWhole(captureCgroupPath + "/pids.max", limit, error)) {
      result = "cannot set pids.max of the capture cgroup: " + std::string(strerror(error));
      return result;
    }
    result = kj::heap<PidsBound>(captureCgroupPath + "/pids.events", "", maxPids);
    return result;
  }
  // cgroup v1: a group of our own in the pids hierarchy.
  std::string mount;
  KJ_IF_MAYBE (found, findCgroup1Mount("pids")) {
    mount = *found;
  } else {
    result = std::string(
        "no pids controller: the capture cgroup's parent does not delegate it (cgroup v2) and "
        "no cgroup v1 pids hierarchy is mounted");
    return result;
  }
  // Inside our own group: a bound the machine already puts on rea (a container's) still holds
  // for the target; a group beside it would escape that bound.
  std::string parent = pidsGroupParent(mount);
  {
    std::string group = parent + "/rea-" + runToken;
    if (mkdir(group.c_str(), 0755) != 0) {
      result = "cannot create a group in the cgroup v1 pids hierarchy under " + parent + ": " +
               strerror(errno);
      return result;
    }
    if (!writeWhole(group + "/pids.max", limit, error)) {
      rmdir(group.c_str());
      result = "cannot set pids.max of " + group + ": " + std::string(strerror(error));
      return result;
    }
    result = kj::heap<PidsBound>(group + "/pids.events", group, maxPids);
    return result;
  }
}

PidsBound::PidsBound(std::string eventsPath, std::string v1GroupPath, uint32_t maxPids)
    : eventsPath(kj::mv(eventsPath)), v1Group(kj::mv(v1GroupPath)), max(maxPids) {}

PidsBound::~PidsBound() noexcept(false) {
  // Normally the capture's cleanup removed it; a member dying just now gets ~1 s.
  for (int attempt = 0; attempt < 100 && !remove(); ++attempt) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, nullptr);
  }
}

uint64_t PidsBound::limitHits() {
  auto read = readProcFile(eventsPath);
  if (read.status != ProcRead::OK) return 0;
  size_t at = read.text.find("max ");
  if (at == std::string::npos || (at > 0 && read.text[at - 1] != '\n')) return 0;
  return strtoull(read.text.c_str() + at + 4, nullptr, 10);
}

bool PidsBound::remove() {
  if (removed || v1Group.empty()) return removed = true;
  if (rmdir(v1Group.c_str()) == 0 || errno == ENOENT) removed = true;
  return removed;
}

}  // namespace rea::helper
