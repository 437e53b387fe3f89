#include "helpers/fswatch/write-lock.h"

#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

// Debian's linux-libc-dev may predate ABI 3 and 5; the values are fixed by the kernel ABI.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

namespace rea::helper {

namespace {

// Only `handled_access_fs` is set; the kernel accepts a shorter struct than its own (it reads
// `size` bytes and treats the rest as zero), so this works whatever the header's version.
struct RulesetAttr {
  uint64_t handledAccessFs;
};

std::string noLandlock(const char* call, int error) {
  return std::string("no landlock: ") + call + ": " + strerror(error);
}

}  // namespace

int landlockAbi() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

uint64_t landlockWriteAccess(int abi) {
  uint64_t access = 0;
  if (abi >= 1) {
    access |= LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
              LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
              LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
              LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
              LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  }
  if (abi >= 2) access |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) access |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) access |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return access;
}

WriteLock refuseWrites() {
  WriteLock lock;
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi <= 0) {
    lock.detail = noLandlock("landlock_create_ruleset", errno);
    return lock;
  }
  lock.abi = static_cast<int>(abi);
  RulesetAttr attr = {landlockWriteAccess(lock.abi)};
  int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0));
  if (ruleset < 0) {
    lock.detail = noLandlock("landlock_create_ruleset", errno);
    return lock;
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    int error = errno;
    close(ruleset);
    lock.detail = noLandlock("prctl(PR_SET_NO_NEW_PRIVS)", error);
    return lock;
  }
  long restricted = syscall(SYS_landlock_restrict_self, ruleset, 0);
  int error = errno;
  close(ruleset);
  if (restricted != 0) {
    lock.detail = noLandlock("landlock_restrict_self", error);
    return lock;
  }
  lock.ringMayOpen = true;
  lock.detail = "landlock ABI " + std::to_string(lock.abi);
  return lock;
}

}  // namespace rea::helper
