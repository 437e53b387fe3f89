#pragma once
// The fswatch helper's syscall filter (seccomp-policy.c++ lists each group and the code path
// that needs it). Golden copy: tests/data/seccomp/fswatch.txt.
//
// Errors: none (building a policy only names syscalls).

#include "helpers/common/seccomp.h"

namespace rea::helper {

SeccompPolicy fswatchSeccompPolicy();
// Installed before the RPC server starts: from then on the helper reads directories, stats,
// opens read-only (no O_WRONLY/O_RDWR/O_CREAT/O_TRUNC/O_APPEND/O_TMPFILE), reads files and
// symlinks, drives its restricted io_uring ring, and speaks RPC on fd 3. No write to any file
// (write(2) is the event loop's and the RPC socket's), no exec, no fork, no socket.

}  // namespace rea::helper
