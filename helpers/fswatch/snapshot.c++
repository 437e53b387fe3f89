#include "helpers/fswatch/snapshot.h"

#include <cerrno>
#include <cstring>

#include "helpers/fswatch/file-io.h"
#include "helpers/fswatch/walk.h"

namespace rea::helper {

const char* snapshotBackendName(SnapshotBackend backend) {
  switch (backend) {
    case SnapshotBackend::AUTO:
      return "auto";
    case SnapshotBackend::PLAIN:
      return "plain";
    case SnapshotBackend::URING:
      return "uring";
  }
  return "auto";
}

std::string SnapshotFailure::message() const {
  if (error == ECANCELED && operation == "cancelled") return "snapshot cancelled at " + path;
  return "snapshot failed: cannot " + operation + " " + path + " (" + entry +
         "): " + strerror(error);
}

bool uringAvailable() {
  static const SnapshotHooks NO_HOOKS;
  return newUringFileIo(NO_HOOKS) != nullptr;
}

SnapshotResult takeSnapshot(const std::vector<std::string>& roots, const SnapshotLimits& limits,
                            SnapshotBackend backend, const SnapshotHooks& hooks) {
  std::unique_ptr<FileIo> io;
  if (backend != SnapshotBackend::PLAIN) io = newUringFileIo(hooks);
  if (io == nullptr) io = newPlainFileIo(hooks);

  WalkResult walk = walkRoots(roots, limits, hooks, *io);
  if (walk.failure && walk.failure->operation == "cancelled") return std::move(*walk.failure);

  // Hash in traversal order under the byte budget, exactly as the one-pass walk of §6.9 would:
  // a file is hashed when the bytes left cover its size, and only a successful hash spends them.
  // Every job precedes a walk failure in traversal order, so a hash failure is reported first
  // (the failure the one-pass walk would have met first); cancellation is reported at once.
  Snapshot snapshot;
  snapshot.truncated = walk.truncated;
  snapshot.backendUsed = io->kind();
  uint64_t budget = limits.fileBytes;
  for (size_t i = 0; i < walk.jobs.size(); ++i) {
    const HashJob& job = walk.jobs[i];
    evidence::SnapshotEntry& entry = walk.entries[job.entryIndex];
    if (!walk.failure && hooks.cancelled && hooks.cancelled()) {
      return SnapshotFailure{job.path, entry.path, "cancelled", ECANCELED};
    }
    auto size = static_cast<uint64_t>(job.stat.size);
    if (size > budget) {
      snapshot.truncated = true;
      continue;
    }
    HashOutcome outcome = io->hash(walk.jobs, i, budget);
    switch (outcome.kind) {
      case HashOutcome::HASHED:
        entry.sha256 = std::move(outcome.sha256);
        budget -= size;
        break;
      case HashOutcome::UNSTABLE:
        snapshot.truncated = true;
        break;
      case HashOutcome::FAILED:
        return SnapshotFailure{job.path, entry.path, outcome.operation, outcome.error};
    }
  }
  if (walk.failure) return std::move(*walk.failure);
  snapshot.entries = std::move(walk.entries);
  return snapshot;
}

}  // namespace rea::helper
