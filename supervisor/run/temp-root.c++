#include "supervisor/run/temp-root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <kj/debug.h>

namespace rea::supervisor {
namespace {

constexpr char OWNER_FILE[] = "/.rea-owner";
constexpr char ROOT_PREFIX[] = "rea-process-";

// Removes every entry of the directory open at `dirFd` (which it closes), depth first, with
// *at() calls relative to open directory fds so a concurrent rename cannot redirect us.
void removeContents(int dirFd, const std::string& path) {
  DIR* dir = fdopendir(dirFd);
  if (dir == nullptr) {
    close(dirFd);
    KJ_FAIL_SYSCALL("fdopendir", errno, path);
  }
  KJ_DEFER(closedir(dir));
  std::vector<std::string> names;
  while (struct dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  for (const auto& name : names) {
    std::string child = path + "/" + name;
    KJ_CONTEXT("removing", child);
    if (unlinkat(dirfd(dir), name.c_str(), 0) == 0) continue;
    int error = errno;
    if (error == ENOENT) continue;
    if (error != EISDIR && error != EPERM) KJ_FAIL_SYSCALL("unlinkat", error, child);
    int childFd;
    KJ_SYSCALL_HANDLE_ERRORS(childFd = openat(dirfd(dir), name.c_str(),
                                              O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) {
      case ENOENT:
        continue;
      default:
        KJ_FAIL_SYSCALL("openat", error, child);
    }
    // A directory we cannot list (mode 0000) is made listable: we own everything in the root.
    fchmod(childFd, 0700);
    removeContents(childFd, child);
    KJ_SYSCALL_HANDLE_ERRORS(unlinkat(dirfd(dir), name.c_str(), AT_REMOVEDIR)) {
      case ENOENT:
        break;
      default:
        KJ_FAIL_SYSCALL("rmdir", error, child);
    }
  }
}

}  // namespace

std::string tempRootBase() {
  const char* dir = getenv("TMPDIR");
  std::string base = dir != nullptr && dir[0] == '/' ? dir : "/tmp";
  while (base.size() > 1 && base.back() == '/')
    base.pop_back();
  return base;
}

StaleTempRoots findStaleTempRoots(bool remove) {
  StaleTempRoots result;
  std::string base = tempRootBase();
  DIR* dir = opendir(base.c_str());
  if (dir == nullptr) return result;
  KJ_DEFER(closedir(dir));
  std::vector<std::string> candidates;
  while (struct dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name.rfind(ROOT_PREFIX, 0) == 0) candidates.push_back(base + "/" + name);
  }
  const time_t OWNER_GRACE_SECONDS = 2;
  for (const auto& root : candidates) {
    struct stat st;
    if (lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    // A capture makes the directory, then the owner file, locks it and writes the record: a young
    // root may be one in that window (a concurrent rea), so only roots older than a couple of
    // seconds are judged, and their lock is tested without ever being held longer than the test.
    if (time(nullptr) - st.st_mtime < OWNER_GRACE_SECONDS) continue;
    bool ours = st.st_uid == geteuid() && (st.st_mode & 07777) == 0700;
    bool stale = false;
    int fd = ours ? open((root + OWNER_FILE).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
    if (fd >= 0) {
      struct stat owner;
      if (fstat(fd, &owner) != 0 || !S_ISREG(owner.st_mode) || owner.st_uid != geteuid()) {
        ours = false;
      } else if (time(nullptr) - owner.st_mtime >= OWNER_GRACE_SECONDS) {
        char record[sizeof(OWNER_RECORD) - 1];
        ssize_t n = pread(fd, record, sizeof(record), 0);
        ours = n == static_cast<ssize_t>(sizeof(record)) &&
               memcmp(record, OWNER_RECORD, sizeof(record)) == 0;
        stale = ours && flock(fd, LOCK_EX | LOCK_NB) == 0;
      } else {
        ours = true;  // young: still being set up
      }
      close(fd);
    } else {
      ours = false;  // no owner file: nothing proves rea made it
    }
    if (!ours) {
      result.notOurs.push_back(root);
      continue;
    }
    if (!stale) continue;
    result.found.push_back(root);
    if (!remove) continue;
    KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { removeTree(root); })) {
      result.failed.push_back(root);
    } else {
      result.removed.push_back(root);
    }
  }
  return result;
}

void removeTree(const std::string& path) {
  int fd;
  KJ_SYSCALL_HANDLE_ERRORS(
      fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) {
    case ENOENT:
      return;
    case ENOTDIR:
    case ELOOP:
      KJ_SYSCALL(unlink(path.c_str()), path);
      return;
    default:
      KJ_FAIL_SYSCALL("open", error, path);
  }
  fchmod(fd, 0700);
  removeContents(fd, path);
  KJ_SYSCALL_HANDLE_ERRORS(rmdir(path.c_str())) {
    case ENOENT:
      return;
    default:
      KJ_FAIL_SYSCALL("rmdir", error, path);
  }
}

TempRoot::TempRoot() {
  std::string pattern = tempRootBase() + "/" + ROOT_PREFIX + "XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) KJ_FAIL_SYSCALL("mkdtemp", errno, pattern);
  rootPath = buffer.data();
  // mkdtemp already uses 0700; chmod makes it independent of the umask's history.
  KJ_SYSCALL(chmod(rootPath.c_str(), 0700), rootPath);
  ownerLockFd = open((rootPath + OWNER_FILE).c_str(),
                     O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  std::string record = std::string(OWNER_RECORD) + "pid " + std::to_string(getpid()) + "\n";
  if (ownerLockFd < 0 || flock(ownerLockFd, LOCK_EX | LOCK_NB) != 0 ||
      write(ownerLockFd, record.data(), record.size()) != static_cast<ssize_t>(record.size()) ||
      mkdir(homePath().c_str(), 0700) != 0) {
    int error = errno;
    if (ownerLockFd >= 0) close(ownerLockFd);
    removeTree(rootPath);
    KJ_FAIL_SYSCALL("creating the temporary root", error, rootPath);
  }
}

TempRoot::~TempRoot() noexcept(false) {
  KJ_DEFER(if (ownerLockFd >= 0) close(ownerLockFd));
  if (!removed) {
    // Best effort on the error path: an exception already unwinding must not be replaced.
    KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { removeTree(rootPath); })) {
      KJ_LOG(ERROR, "temporary root cleanup failed", rootPath, e->getDescription());
    }
  }
}

void TempRoot::remove() {
  if (removed) return;
  removeTree(rootPath);
  removed = true;
}

std::optional<std::string> TempRoot::tryRemove() {
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([this]() { remove(); })) {
    // The root's random name would make the message differ from run to run.
    const std::string placeholder = "<temporary-root>";
    std::string cause = e->getDescription().cStr();
    for (size_t at = cause.find(rootPath); at != std::string::npos;
         at = cause.find(rootPath, at + placeholder.size())) {
      cause.replace(at, rootPath.size(), placeholder);
    }
    return "temporary process root cleanup failed (" + cause + ")";
  }
  return std::nullopt;
}

}  // namespace rea::supervisor
