#include "helpers/sampler/capture-cgroup.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include <kj/debug.h>

#include "helpers/sampler/cgroup-owner.h"
#include "helpers/sampler/ownership.h"
#include "helpers/sampler/proc-stat.h"

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

std::string errnoText(int error) {
  return strerror(error);
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

void sleepMs(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
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

std::vector<std::string> captureCgroupParents(const std::string& mount) {
  std::vector<std::string> parents = {mount};
  std::string own = ownCgroupPath();
  if (!own.empty() && own != "/") parents.push_back(mount + own);
  return parents;
}

kj::OneOf<kj::Own<CaptureCgroup>, std::string> CaptureCgroup::create(const std::string& runToken) {
  KJ_REQUIRE(!runToken.empty() && runToken.find('/') == std::string::npos &&
                 runToken.find('\0') == std::string::npos,
             "a run token must be usable as a file name");
  kj::OneOf<kj::Own<CaptureCgroup>, std::string> result;
  std::string mount;
  KJ_IF_MAYBE (found, findCgroup2Mount()) {
    mount = *found;
  } else {
    result = std::string("no cgroup2 hierarchy in /proc/self/mountinfo");
    return result;
  }
  // The owner record goes on the group first thing (cgroup-owner.h): a group without one is
  // left alone by other rea runs for a minute only.
  auto owner = ownerRecordForParent();
  if (!owner) {
    result = std::string("cannot identify this capture's owner in /proc (for its cgroup record)");
    return result;
  }
  std::string record = formatOwnerRecord(*owner);
  std::string reason;
  for (const auto& parent : captureCgroupParents(mount)) {
    std::string path = parent + "/rea-" + runToken;
    if (mkdir(path.c_str(), 0755) != 0) {
      int error = errno;
      if (error == EEXIST) {
        result = "a cgroup named after this run token already exists: " + path;
        return result;
      }
      if (reason.empty())
        reason = "cannot create a cgroup under " + parent + ": " + errnoText(error);
      continue;
    }
    if (setxattr(path.c_str(), CGROUP_OWNER_XATTR, record.data(), record.size(), 0) != 0) {
      int error = errno;
      rmdir(path.c_str());
      result = "cannot record the owner of the capture cgroup " + path + ": " + errnoText(error);
      return result;
    }
    if (access((path + "/cgroup.kill").c_str(), W_OK) != 0) {
      rmdir(path.c_str());
      result = "the cgroup2 hierarchy at " + mount + " has no cgroup.kill (kernel older than 5.14)";
      return result;
    }
    int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      int error = errno;
      rmdir(path.c_str());
      result = "cannot open the capture cgroup " + path + ": " + errnoText(error);
      return result;
    }
    result = kj::heap<CaptureCgroup>(path, runToken, kj::AutoCloseFd(fd));
    return result;
  }
  result = kj::mv(reason);
  return result;
}

CaptureCgroup::CaptureCgroup(std::string path, std::string runToken, kj::AutoCloseFd dirFd)
    : groupPath(kj::mv(path)), runToken(kj::mv(runToken)), directory(kj::mv(dirFd)) {
  int fd;
  // Opened now so that cleanup needs no open-for-writing (the helper's filter can refuse it).
  KJ_SYSCALL(fd = openat(directory.get(), "cgroup.kill", O_WRONLY | O_CLOEXEC), groupPath);
  killFile = kj::AutoCloseFd(fd);
  // Also opened now: release() writes unowned members' pids here. Without it (no permission)
  // they keep the group populated, and cleanup says so.
  fd = openat(directory.get(), "../cgroup.procs", O_WRONLY | O_CLOEXEC);
  if (fd >= 0) parentProcs = kj::AutoCloseFd(fd);
  KJ_SYSCALL(fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  watch = kj::AutoCloseFd(fd);
  KJ_SYSCALL(inotify_add_watch(fd, (groupPath + "/cgroup.events").c_str(), IN_MODIFY), groupPath);
}

CaptureCgroup::~CaptureCgroup() noexcept(false) {
  if (removed) return;
  // Last resort (normally cleanup.h has already emptied and removed the group): kill what is
  // provably ours, never what is not, and remove the directory once it is empty.
  for (int attempt = 0; attempt < 100 && !remove(); ++attempt) {
    if (attempt % 10 == 0) {
      std::vector<InspectedProcess> owned;
      bool allOwned = true;
      for (pid_t pid : members()) {
        auto process = inspectProcess(pid, runToken);
        if (process.getOwnership() == Ownership::OWNED) {
          owned.push_back(kj::mv(process));
        } else if (process.getOwnership() != Ownership::GONE) {
          allOwned = false;
          KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { release(process); })) {
            KJ_LOG(WARNING, "an unowned member could not be released from the capture cgroup", *e);
          }
        }
      }
      if (allOwned) {
        kill();
      } else {
        for (auto& process : owned) {
          process.kill();
        }
      }
    }
    sleepMs(10);
  }
  if (!removed) KJ_LOG(WARNING, "capture cgroup left behind: still populated", groupPath);
}

std::string CaptureCgroup::readFile(const char* name) {
  auto read = readProcFile(groupPath + "/" + name);
  KJ_REQUIRE(read.status == ProcRead::OK, "capture cgroup file unreadable", groupPath, name);
  return kj::mv(read.text);
}

std::vector<pid_t> CaptureCgroup::members() {
  std::vector<pid_t> pids;
  if (removed) return pids;
  std::istringstream lines(readFile("cgroup.procs"));
  long pid;
  while (lines >> pid) {
    if (pid > 0) pids.push_back(static_cast<pid_t>(pid));
  }
  return pids;
}

bool CaptureCgroup::populated() {
  if (removed) return false;
  std::istringstream lines(readFile("cgroup.events"));
  std::string key;
  int value;
  while (lines >> key >> value) {
    if (key == "populated") return value != 0;
  }
  KJ_FAIL_REQUIRE("cgroup.events has no populated line", groupPath);
}

bool CaptureCgroup::drainEventsWatch() {
  alignas(inotify_event) char buffer[4096];
  bool changed = false;
  for (;;) {
    ssize_t n;
    KJ_SYSCALL_HANDLE_ERRORS(n = read(watch.get(), buffer, sizeof(buffer))) {
      case EAGAIN:
        return changed;
      default:
        KJ_FAIL_SYSCALL("read(inotify)", error, groupPath);
    }
    if (n <= 0) return changed;
    changed = true;
  }
}

void CaptureCgroup::kill() {
  KJ_REQUIRE(!removed, "the capture cgroup is already removed");
  KJ_SYSCALL(write(killFile.get(), "1", 1), groupPath, "cgroup.kill");
}

bool CaptureCgroup::release(const InspectedProcess& process) {
  KJ_REQUIRE(
      process.getOwnership() != Ownership::OWNED && process.getOwnership() != Ownership::GONE,
      "only live unowned members are released; owned ones are killed", process.getPid());
  auto& procs =
      KJ_REQUIRE_NONNULL(parentProcs, "the parent's cgroup.procs is not writable", groupPath);
  if (!process.isAlive()) return false;
  std::string pid = std::to_string(process.getPid());
  KJ_SYSCALL_HANDLE_ERRORS(write(procs.get(), pid.data(), pid.size())) {
    case ESRCH:
      return false;
    default:
      KJ_FAIL_SYSCALL("write(../cgroup.procs)", error, groupPath, pid);
  }
  return true;
}

bool CaptureCgroup::remove() {
  if (removed) return true;
  KJ_SYSCALL_HANDLE_ERRORS(rmdir(groupPath.c_str())) {
    case EBUSY:
      return false;
    case ENOENT:
      break;
    default:
      KJ_FAIL_SYSCALL("rmdir", error, groupPath);
  }
  removed = true;
  return true;
}

pid_t cloneIntoCgroup(int cgroupDirFd, int* pidfdOut) {
  struct clone_args args;
  memset(&args, 0, sizeof(args));
  int pidfd = -1;
  args.flags = CLONE_INTO_CGROUP | (pidfdOut != nullptr ? CLONE_PIDFD : 0);
  args.pidfd = reinterpret_cast<uintptr_t>(&pidfd);
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<uint64_t>(cgroupDirFd);
  long pid;
  KJ_SYSCALL(pid = syscall(SYS_clone3, &args, sizeof(args)), cgroupDirFd);
  if (pid != 0 && pidfdOut != nullptr) *pidfdOut = pidfd;
  return static_cast<pid_t>(pid);
}

}  // namespace rea::helper
