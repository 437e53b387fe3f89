#pragma once
// The replay helper's hooks for helperMain: its Cap'n Proto server (schema/replay.capnp), which
// adapts RPC to ReplayServer and nothing more, its seccomp policy and its standalone mode.
//
// Errors: `start` throws FAILED on a second call, an invalid plan, a failed bind or when the
// loopback namespace cannot be made; a failed batch push fails the helper (HelperContext::fail),
// which then exits 1.

#include "helpers/common/helper-main.h"

namespace rea::helper {

HelperSpec replayHelperSpec();
// name "replay"; the filter is installed by `start` right after the listening socket is bound
// (lockDownAtStart = false): making the namespace needs fork, unshare and setns, and no byte
// from the target can arrive before the socket exists.

}  // namespace rea::helper
