#pragma once
// Landlock for the fswatch helper: a ruleset that handles every write-type filesystem access
// right the kernel knows and grants none, so nothing can be written, truncated, created, removed,
// renamed or linked anywhere by this process from then on. It is what makes opening files
// through io_uring safe: io_uring operations bypass seccomp, so the filter's "openat only
// without O_WRONLY/O_CREAT/O_TRUNC/..." does not reach IORING_OP_OPENAT, but Landlock is an LSM
// and its hooks run for ring requests too (they carry the submitter's credentials).
//
// Where Landlock is unavailable (kernel without it, disabled at boot, an outer seccomp filter
// refusing its syscalls, the nesting limit), the helper must not open files through the ring:
// `ringMayOpen` is false and the io_uring backend opens with plain openat, which the seccomp
// filter checks for read-only flags.
//
// Errors: none thrown; an unavailable Landlock is a result (`detail` says why).

#include <cstdint>
#include <string>

namespace rea::helper {

struct WriteLock {
  bool ringMayOpen = false;  // Landlock refuses every write: io_uring may open files
  int abi = 0;               // the kernel's Landlock ABI version; 0 when unavailable
  std::string detail;
  // "landlock ABI 7" or "no landlock: <why>" (reported beside the snapshot backend).
};

int landlockAbi();
// landlock_create_ruleset(NULL, 0, VERSION): the highest ABI the kernel supports, 0 when
// Landlock is unavailable here.

uint64_t landlockWriteAccess(int abi);
// The write-type access rights ABI `abi` knows: WRITE_FILE, REMOVE_DIR, REMOVE_FILE and the
// seven MAKE_* (ABI 1), REFER (2), TRUNCATE (3), IOCTL_DEV (5). Reading, listing and executing
// are not among them.

WriteLock refuseWrites();
// Sets PR_SET_NO_NEW_PRIVS (Landlock requires it) and restricts the calling thread and every
// thread or process it starts later with a ruleset handling landlockWriteAccess(abi) and no
// rule. Call it while the process has a single thread (the fswatch helper, before its lock-down
// and before its first ring exists). Files already open keep the access they were opened with.

}  // namespace rea::helper
