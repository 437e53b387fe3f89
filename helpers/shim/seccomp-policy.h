#pragma once
// The shim helper's syscall filter (seccomp-policy.c++ lists each group and the code path that
// needs it). Golden copy: tests/data/seccomp/shim.txt.
//
// Errors: none (building a policy only names syscalls).

#include "helpers/common/seccomp.h"

namespace rea::helper {

SeccompPolicy shimSeccompPolicy();
// Installed once the shim files are written and the ledger socket listens (ShimJob::start);
// from then on the helper accepts ledger connections, reads requests and writes answers on
// them, and speaks RPC. No execve, no open (so no file can be written anywhere: the shim
// directory was finished before the filter), no new socket, no bind, no connect.

}  // namespace rea::helper
