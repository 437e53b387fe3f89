#pragma once
// The shim helper's hooks for helperMain: its Cap'n Proto server (schema/shim.capnp), which
// adapts RPC to ShimJob and nothing more, its seccomp policy and its standalone mode.
//
// Errors: `start` throws FAILED on a second call, an invalid config, a shim file that cannot be
// written or a socket that cannot be bound; a failed batch push fails the helper
// (HelperContext::fail), which then exits 1.

#include "helpers/common/helper-main.h"

namespace rea::helper {

HelperSpec shimHelperSpec();
// name "shim"; the filter is installed by the job once the shim files are written and the
// ledger socket listens (lockDownAtStart = false): no request byte is read before it.

}  // namespace rea::helper
