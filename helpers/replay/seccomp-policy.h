#pragma once
// The replay helper's syscall filter (seccomp-policy.c++ lists each group and the code path that
// needs it). Golden copy: tests/data/seccomp/replay.txt.
//
// Errors: none (building a policy only names syscalls).

#include "helpers/common/seccomp.h"

namespace rea::helper {

SeccompPolicy replaySeccompPolicy();
// Installed once the listening socket is bound (and, for loopback, the namespace entered): from
// then on the helper accepts connections on that socket, reads and writes them, arms timers and
// speaks RPC. No execve, no open (so no file is written), no socket, no connect.

}  // namespace rea::helper
