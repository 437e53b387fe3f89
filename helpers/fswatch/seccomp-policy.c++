#include "helpers/fswatch/seccomp-policy.h"

#include <fcntl.h>

namespace rea::helper {

namespace {

constexpr int TMPFILE_BIT = O_TMPFILE & ~O_DIRECTORY;  // 020000000 on Linux

}  // namespace

SeccompPolicy fswatchSeccompPolicy() {
  SeccompPolicy policy("fswatch");
  // The event loop, RPC on fd 3, malloc, clocks, mutexes: every helper's baseline.
  policy.baseline();
  // walk.c++ / file-io.c++: lstat relative to an open directory (fstatat AT_SYMLINK_NOFOLLOW),
  // fstat of opened files and directories (glibc uses newfstatat with AT_EMPTY_PATH, older ones
  // fstat), statx for completeness of the same calls.
  policy.allow("fswatch-stat", "newfstatat")
      .allow("fswatch-stat", "fstat")
      .allow("fswatch-stat", "statx");
  // Directories are listed with getdents64; symlinks are read with readlinkat, never followed.
  policy.allow("fswatch-walk", "getdents64").allow("fswatch-walk", "readlinkat");
  // openat for reading only: directories (O_DIRECTORY|O_NOFOLLOW), files to hash (O_NOFOLLOW|
  // O_NONBLOCK), O_PATH steps of a long path. Every flag that could create, truncate or write
  // is refused by the filter.
  // (glibc's O_TMPFILE includes O_DIRECTORY, which directories need: only its own bit is masked.)
  policy.allowIf("fswatch-open", "openat",
                 argMaskClear(2, O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | TMPFILE_BIT,
                              "O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|O_TMPFILE"));
  // uring-io.c++: the ring is created disabled, restricted to STATX/READ/CLOSE (and OPENAT only
  // once Landlock refuses every write: write-lock.h) by io_uring_register, then enabled;
  // io_uring_enter submits and reaps. A filter denying these
  // would only select the plain backend, but the ring is what makes large trees fast.
  policy.allow("fswatch-uring", "io_uring_setup")
      .allow("fswatch-uring", "io_uring_enter")
      .allow("fswatch-uring", "io_uring_register");
  return policy;
}

}  // namespace rea::helper
