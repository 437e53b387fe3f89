#pragma once
// The pty helper's syscall filter (seccomp-policy.c++ lists each group and the code path that
// needs it). Golden copy: tests/data/seccomp/pty.txt.
//
// Errors: none (building a policy only names syscalls).

#include "helpers/common/seccomp.h"

namespace rea::helper {

SeccompPolicy ptySeccompPolicy();
// Installed after the target is forked; from then on the helper drains, writes input, resizes,
// signals and reaps its one root, and speaks RPC. No execve, no open, no socket.

}  // namespace rea::helper
