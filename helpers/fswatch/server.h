#pragma once
// The fswatch helper's hooks for helperMain: its Cap'n Proto server (schema/fswatch.capnp), which
// adapts RPC to the Snapshotter and nothing more, its seccomp policy and its standalone mode.
//
// Errors: `snapshot` throws FAILED on an invalid request (too many roots, a relative root,
// limits out of range); a snapshot that cannot read an entry is a SnapshotFailure *result*.

#include "helpers/common/helper-main.h"

namespace rea::helper {

HelperSpec fswatchHelperSpec();
// name "fswatch"; the filter is installed by makeServer, once fd 3 is wrapped and before any
// request is read, after `prepare` has warmed up OpenSSL's SHA-256 (its first use may read
// configuration files). Standalone mode locks down in runStandalone, before the walk.

}  // namespace rea::helper
