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
  return newUringFileIo(false, RingOpen::FORBIDDEN) != nullptr;
}

namespace {

// `auto` threshold (bench/README.md): below it a ring's set-up cost outweighs its gain.
constexpr size_t AUTO_URING_HASH_FILES = 256;  // small files to hash

bool hashingWorthARing(const std::vector<HashJob>& jobs) {
  size_t small = 0;
  for (const auto& job : jobs) {
    small += static_cast<uint64_t>(job.stat.size) <= URING_SMALL_FILE_BYTES;
  }
  return small >= AUTO_URING_HASH_FILES;
}

}  // namespace

Snapshotter::Snapshotter(SnapshotBackend backend, RingOpen ringOpen)
    : backend(backend), ringOpen(ringOpen) {}

Snapshotter::~Snapshotter() noexcept(false) {}

FileIo& Snapshotter::plainIo() {
  if (plain == nullptr) plain = newPlainFileIo();
  return *plain;
}

FileIo* Snapshotter::uringIo() {
  if (uring == nullptr && !uringUnavailable) {
    // Large files stream through the ring only when io_uring was asked for explicitly: `auto`
    // reads them with read(), which measured as fast or faster here (bench/README.md).
    uring = newUringFileIo(backend == SnapshotBackend::URING, ringOpen);
    uringUnavailable = uring == nullptr;
  }
  return uring.get();
}

SnapshotResult Snapshotter::take(const std::vector<std::string>& roots,
                                 const SnapshotLimits& limits, const SnapshotHooks& hooks) {
  WalkResult walk = walkRoots(roots, limits, hooks);
  if (walk.failure && walk.failure->operation == "cancelled") return std::move(*walk.failure);

  // `auto`: a ring set up by an earlier snapshot costs nothing more and wins on every tree;
  // without one, only a tree with many small files pays for setting one up.
  FileIo* io = &plainIo();
  bool usedUring = false;
  if (backend == SnapshotBackend::URING ||
      (backend == SnapshotBackend::AUTO && (uring != nullptr || hashingWorthARing(walk.jobs)))) {
    if (FileIo* ring = uringIo()) {
      io = ring;
      usedUring = true;
    }
  }
  io->startSnapshot();

  // Hash in traversal order under the byte budget, exactly as the one-pass walk of §6.9 would:
  // a file is hashed when the bytes left cover its size, and only a successful hash spends them.
  // Every job precedes a walk failure in traversal order, so a hash failure is reported first
  // (the failure the one-pass walk would have met first); cancellation is reported at once.
  Snapshot snapshot;
  snapshot.truncated = walk.truncated;
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
    HashOutcome outcome = io->hash(walk.jobs, i, budget, hooks);
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
  snapshot.backendUsed = usedUring ? SnapshotBackend::URING : SnapshotBackend::PLAIN;
  return snapshot;
}

SnapshotResult takeSnapshot(const std::vector<std::string>& roots, const SnapshotLimits& limits,
                            SnapshotBackend backend, const SnapshotHooks& hooks,
                            RingOpen ringOpen) {
  return Snapshotter(backend, ringOpen).take(roots, limits, hooks);
}

}  // namespace rea::helper
