#pragma once
// The fswatch helper alone: `rea-fswatch --standalone request.json`, with the request
//   {"roots": ["/abs/path", ...], "files": N, "fileBytes": N, "depth": N,
//    "backend": "auto"|"plain"|"uring"}          (all but "roots" optional: B §3.6 defaults)
// prints one snapshot as JSON lines:
//   {"entry": {"path", "type", "mode", "size", "sha256", "symlink_target"}}   (traversal order)
//   {"done": {"truncated": B, "backend": "plain"|"uring", "ring_may_open": B,
//             "write_lock": "landlock ABI 7" | "no landlock: <why>"}}
// (`ring_may_open`: the uring backend opens files through the ring, which it may only under
// Landlock, write-lock.h; otherwise it opens them with plain openat)
// or, when an entry cannot be read, the entries are not printed and the last line is
//   {"failure": {"path", "entry", "operation", "error", "message"}}
// Names that are not UTF-8 are printed with U+FFFD replacements (the JSON must stay valid).
//
// Errors: snapshotRequestFromJson throws FAILED naming the first malformed field.

#include <kj/async.h>

#include <string>
#include <vector>

#include "evidence/json.h"
#include "helpers/common/helper-main.h"
#include "helpers/fswatch/snapshot.h"
#include "helpers/fswatch/write-lock.h"

namespace rea::helper {

struct SnapshotRequest {
  std::vector<std::string> roots;
  SnapshotLimits limits;
  SnapshotBackend backend = SnapshotBackend::AUTO;
};

SnapshotRequest snapshotRequestFromJson(const evidence::Json& request);

void checkSnapshotRequest(const std::vector<std::string>& roots, const SnapshotLimits& limits);
// The ranges of SPEC B §3.1/§3.6 (≤16 roots, each absolute; files, fileBytes and depth as
// evidence/limits.h bounds them); throws FAILED otherwise. The RPC server applies it too.

kj::Promise<void> runFswatchStandalone(const evidence::Json& request, const WriteLock& lock,
                                       JsonLines& out);
// Takes the snapshot (after the caller's lock-down, whose Landlock result is `lock`) and prints
// it.

}  // namespace rea::helper
