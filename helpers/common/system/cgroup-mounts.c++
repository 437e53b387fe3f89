#include "helpers/common/system/cgroup-mounts.h"

#include <sys/stat.h>

#include <sstream>

#include "helpers/common/system/proc-stat.h"

namespace rea::helper {
namespace {

std::string unescapeMountField(const std::string& field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '3' &&
        field[i + 2] >= '0' && field[i + 2] <= '7' && field[i + 3] >= '0' && field[i + 3] <= '7') {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
                               (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

// The cgroup v2 path of this process ("0::/some/path" in /proc/self/cgroup), or "" if none.
std::string ownCgroupPath() {
  auto read = readProcFile("/proc/self/cgroup");
  std::istringstream lines(read.text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, 3, "0::") == 0) return line.substr(3);
  }
  return {};
}

// This process's group in the v1 hierarchy of `controller` ("N:pids:/some/path"), or "".
std::string ownCgroup1Path(const std::string& controller) {
  auto read = readProcFile("/proc/self/cgroup");
  std::istringstream lines(read.text);
  std::string line;
  while (std::getline(lines, line)) {
    size_t first = line.find(':');
    size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::istringstream controllers(line.substr(first + 1, second - first - 1));
    std::string each;
    while (std::getline(controllers, each, ',')) {
      if (each == controller) return line.substr(second + 1);
    }
  }
  return {};
}

}  // namespace

std::vector<MountEntry> parseMountinfo(const std::string& mountinfo) {
  std::vector<MountEntry> entries;
  std::istringstream lines(mountinfo);
  std::string line;
  while (std::getline(lines, line)) {
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    size_t dash = line.find(" - ");
    if (dash == std::string::npos) continue;
    std::istringstream head(line.substr(0, dash));
    std::istringstream tail(line.substr(dash + 3));
    std::string id, parent, device, root, mountPoint, source;
    MountEntry entry;
    if (!(head >> id >> parent >> device >> root >> mountPoint)) continue;
    if (!(tail >> entry.fstype >> source >> entry.superOptions)) continue;
    entry.mountPoint = unescapeMountField(mountPoint);
    entries.push_back(kj::mv(entry));
  }
  return entries;
}

kj::Maybe<std::string> findCgroup2Mount(const std::string& mountinfo) {
  for (auto& entry : parseMountinfo(mountinfo)) {
    if (entry.fstype == "cgroup2") return kj::mv(entry.mountPoint);
  }
  return nullptr;
}

kj::Maybe<std::string> findCgroup2Mount() {
  auto read = readProcFile("/proc/self/mountinfo");
  if (read.status != ProcRead::OK) return nullptr;
  return findCgroup2Mount(read.text);
}

kj::Maybe<std::string> findCgroup1Mount(const std::string& mountinfo,
                                        const std::string& controller) {
  for (auto& entry : parseMountinfo(mountinfo)) {
    if (entry.fstype != "cgroup") continue;
    std::istringstream options(entry.superOptions);
    std::string option;
    while (std::getline(options, option, ',')) {
      if (option == controller) return kj::mv(entry.mountPoint);
    }
  }
  return nullptr;
}

kj::Maybe<std::string> findCgroup1Mount(const std::string& controller) {
  auto read = readProcFile("/proc/self/mountinfo");
  if (read.status != ProcRead::OK) return nullptr;
  return findCgroup1Mount(read.text, controller);
}

std::vector<std::string> captureCgroupParents(const std::string& mount) {
  std::vector<std::string> parents = {mount};
  std::string own = ownCgroupPath();
  if (!own.empty() && own != "/") parents.push_back(mount + own);
  return parents;
}

std::vector<std::string> captureCgroupCandidates(const std::string& runToken) {
  std::vector<std::string> paths;
  KJ_IF_MAYBE (mount, findCgroup2Mount()) {
    for (const auto& parent : captureCgroupParents(*mount)) {
      paths.push_back(parent + "/rea-" + runToken);
    }
  }
  return paths;
}

std::string pidsGroupParent(const std::string& mount) {
  std::string own = ownCgroup1Path("pids");
  // /proc/self/cgroup may name a group this mount does not show (another cgroup namespace's
  // view, as this machine kind does for its memory hierarchy): then the mount's root it is.
  struct stat info;
  if (own.empty() || own == "/" || stat((mount + own).c_str(), &info) != 0 ||
      !S_ISDIR(info.st_mode)) {
    return mount;
  }
  return mount + own;
}

}  // namespace rea::helper
