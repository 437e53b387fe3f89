#pragma once
// The sampler helper's hooks for helperMain: its Cap'n Proto server (schema/sampler.capnp),
// which adapts RPC to ProcessObserver and nothing more, its seccomp policy and its standalone
// mode.
//
// Errors: a call out of order (or twice) throws FAILED; a failed batch push fails the helper
// (HelperContext::fail), which then exits 1.

#include "helpers/common/helper-main.h"

namespace rea::helper {

HelperSpec samplerHelperSpec();
// name "sampler"; the filter is installed by `prepare` right after the observer has created the
// capture cgroup and subscribed to process events (lockDownAtStart = false): those need mkdir in
// cgroupfs and a netlink socket, which the filter forbids. No untrusted byte (no /proc file of
// the target, no netlink datagram) is read before it.

}  // namespace rea::helper
