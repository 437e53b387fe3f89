#pragma once
// Internal to helpers/fswatch: the first half of a snapshot, the walk of SPEC B §6.9. It records
// every entry in traversal order with lstat data and collects the regular files as hash jobs;
// snapshot.c++ then hashes them in the same order under the byte budget. Splitting the two lets
// an io_uring FileIo read many files per submission, while the budget decisions stay exactly
// those of the one-pass baseline (which file gets a hash depends only on the files before it).
//
// Errors: a failure (unreadable entry, cancellation) stops the walk and is returned in
// WalkResult::failure; everything recorded before it stays, so that a hash failure of an earlier
// file can still be reported first.

#include <optional>
#include <string>
#include <vector>

#include "helpers/fswatch/file-io.h"
#include "helpers/fswatch/snapshot.h"

namespace rea::helper {

struct WalkResult {
  std::vector<evidence::SnapshotEntry> entries;  // sha256 still empty
  std::vector<HashJob> jobs;                     // the regular files, in traversal order
  bool truncated = false;
  std::optional<SnapshotFailure> failure;
};

WalkResult walkRoots(const std::vector<std::string>& roots, const SnapshotLimits& limits,
                     const SnapshotHooks& hooks);
// lstat's with plain calls whatever the backend: io_uring would run each STATX in an io-wq
// worker thread, which measured slower on an idle machine (bench/README.md).

}  // namespace rea::helper
