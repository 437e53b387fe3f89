#pragma once
// The fswatch helper's snapshot answers as FswatchLink receives them (B §6.9), without I/O: a
// SnapshotResult is converted into FswatchOutcome and checked against the request (paths under
// a declared root alias, in traversal order and unique, types matching the mode bits, hashes
// only on files and within the byte budget, the entry budget, the depth, truncation reported
// when an entry shows it; a failure naming a root entry, a known operation and an errno). Pure:
// tests/fuzz/helper-messages-fuzz.c++ drives it with arbitrary messages.
//
// Errors: none thrown (a malformed message is a broken rule too, helper-message.h).

#include <cstddef>
#include <kj/function.h>
#include <kj/common.h>
#include <string>

#include "schema/fswatch.capnp.h"
#include "supervisor/links/broken-rule.h"
#include "supervisor/links/fswatch-link.h"

namespace rea::supervisor {

kj::Maybe<BrokenRule> checkSnapshotResult(
    kj::FunctionParam<schema::SnapshotResult::Reader()> readResult, size_t rootCount,
    const FswatchLimits& limits, FswatchOutcome& outcome);
// `readResult` reads the answer (a Cap'n Proto getter: it may throw on a malformed message, so
// it runs inside the check). Fills `outcome` (kind, snapshot or failure; not atNs) from the answer
// to a snapshot of `rootCount` roots under `limits`. Returns what the helper sent when it breaks a
// rule, as the object of "the fswatch helper sent ..." (e.g. "an invalid snapshot (a repeated
// path)"), or null when the answer is fine.

}  // namespace rea::supervisor
