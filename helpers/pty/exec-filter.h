#pragma once
// The target's half of kernel-side exec observation (helpers/common/exec-channel.h,
// helpers/sampler/README.md): a classic-BPF seccomp program that answers execve and execveat
// of the native ABI with SECCOMP_RET_USER_NOTIF (everything else, and other ABIs, are allowed:
// their execs are still seen by the proc connector, from /proc), built before the clone, and the
// raw-syscall routine the child runs right before its first exec.
//
// no_new_privs: with CAP_SYS_ADMIN (root) the filter is installed as it is. Without it the
// kernel refuses a filter unless no_new_privs is set, so the child sets it and retries: a
// setuid/setgid program or one with file capabilities then runs inside the target without
// gaining those privileges (e.g. sudo fails). REA_EXEC_OBSERVATION=proc avoids this.
//
// Errors: installExecFilterInChild never fails the target: a failed install is reported on
// the channel (EXEC_CHANNEL_FAILED) and the target runs unfiltered.

#include <linux/filter.h>

namespace rea::helper {

struct ExecFilter {
  struct sock_filter code[12];
  struct sock_fprog program;
};

bool execFilterSupported();
// False on an architecture this file has no syscall numbers for.

void buildExecFilter(ExecFilter& filter);
// Fills `filter` (call before the clone: the child only reads it).

void installExecFilterInChild(const ExecFilter& filter, int channel);
// In the vfork child, after every other setup step and before the first execve: installs the
// filter, sends the listener (or the failure) on `channel` and closes both. Raw syscalls only.
// Where the kernel has it (5.19), the listener is WAIT_KILLABLE_RECV: an exec the sampler has
// heard of is not interrupted and restarted by a signal or a checkpoint's freeze.

}  // namespace rea::helper
