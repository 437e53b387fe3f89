#pragma once
// The sampler helper's syscall filter (seccomp-policy.c++ lists each group and the code path
// that needs it). Golden copy: tests/data/seccomp/sampler.txt.
//
// Errors: none (building a policy only names syscalls).

#include "helpers/common/seccomp.h"

namespace rea::helper {

SeccompPolicy samplerSeccompPolicy();
// Installed once the capture cgroup exists and the proc connector is subscribed. From then on
// the helper reads /proc and its cgroup's files (open read-only), receives netlink datagrams,
// kills owned processes through pidfds (SIGKILL only), removes its cgroup directory and speaks
// RPC. No execve, no fork, no new socket, no file opened for writing.

}  // namespace rea::helper
