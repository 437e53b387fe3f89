#pragma once
// The pty helper's hooks for helperMain: its Cap'n Proto server (schema/pty.capnp), which adapts
// RPC to PtyJob and nothing more, its seccomp policy and its standalone mode.
//
// Errors: `start` throws FAILED on a second call, an invalid config or a failed spawn; a failed
// batch push or a broken drain fails the helper (HelperContext::fail), which then exits 1.

#include "helpers/common/helper-main.h"

namespace rea::helper {

HelperSpec ptyHelperSpec();
// name "pty"; the filter is installed by the job right after the target is forked
// (lockDownAtStart = false): the target never runs under it, and no byte of its output is read
// before it.

}  // namespace rea::helper
