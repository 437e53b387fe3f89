#include "helpers/common/system/capture-cgroup.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include <kj/debug.h>

#include "helpers/common/system/cgroup-mounts.h"
#include "helpers/common/system/cgroup-owner.h"
#include "helpers/common/system/ownership.h"
#include "helpers/common/system/proc-stat.h"
#include "helpers/common/system/sleep.h"

namespace rea::helper {
namespace {

std::string errnoText(int error) {
  return strerror(error);
}

}  // namespace

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
  // cgroup.events itself, polled for POLLPRI, rather than an inotify watch on it: the kernel
  // wakes pollers of the file on every change either way, but closing an inotify instance waits
  // for an RCU grace period (fsnotify_destroy_group), ~10 ms at the end of every capture.
  KJ_SYSCALL(fd = openat(directory.get(), "cgroup.events", O_RDONLY | O_CLOEXEC), groupPath);
  watch = kj::AutoCloseFd(fd);
  drainEventsWatch();  // a change counts from here on (the first drain reports one)
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
  // The file polls POLLPRI (and POLLERR) once it changed since this fd last read it: look, then
  // read it again from the start, which makes the next change the next edge. A change between
  // the look and the read is consumed by the read, so the text read is compared as well.
  struct pollfd pending = {watch.get(), POLLPRI, 0};
  int ready;
  KJ_SYSCALL(ready = poll(&pending, 1, 0), groupPath, "cgroup.events");
  bool changed = ready > 0 && (pending.revents & (POLLPRI | POLLERR)) != 0;
  char buffer[256];
  KJ_SYSCALL(lseek(watch.get(), 0, SEEK_SET), groupPath, "cgroup.events");
  ssize_t n;
  KJ_SYSCALL(n = read(watch.get(), buffer, sizeof(buffer)), groupPath, "cgroup.events");
  std::string text(buffer, static_cast<size_t>(n));
  if (text != lastEvents) changed = true;
  lastEvents = kj::mv(text);
  return changed;
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
