#pragma once
// Starting a child that will exec, without fork()'s costs. fork() copies the parent's page
// tables and leaves it to take a copy-on-write fault on every page it writes afterwards; a
// child that only sets up file descriptors and execs needs none of that. cloneVfork() runs
// `entry` in a child that shares our memory on a stack of its own, and suspends us until the
// child has exec'd or exited (vfork semantics), optionally born straight into a cgroup v2 group
// (clone3 CLONE_INTO_CGROUP, Linux 5.7; without a group it is plain clone(2), which container
// seccomp profiles allow where they answer clone3 with ENOSYS). It took ~2-3 ms off each start
// of a helper and of the target on this machine kind (bench/README.md, capture-bench).
//
// The rules for `entry`, because it runs on our memory while we wait: read what was prepared
// before the call, write nothing of ours (errno aside), make system calls (raw ones where a
// libc or sanitizer wrapper might keep state), and end in execve() or _exit(). It starts with
// every signal blocked, so none of our handlers can run in it; resetSignalsInChild() gives it
// default dispositions and an empty mask before it execs.
//
// Errors: returns -1 with errno set when the child cannot be created.

#include <sys/types.h>

namespace rea::helper {

pid_t cloneVfork(int cgroupFd, int (*entry)(void*), void* argument);
// `cgroupFd`: an O_DIRECTORY fd of the group to be born in, or -1 for ours. Returns the child's
// pid once it has exec'd or exited.

void resetSignalsInChild();
// In the child of cloneVfork: every disposition to SIG_DFL (exec keeps ignored signals
// ignored), then nothing blocked. Raw system calls only.

}  // namespace rea::helper
