#include "supervisor/assembly/assemble-filesystem.h"

#include <algorithm>

#include "evidence/bucket.h"
#include "evidence/utf.h"

namespace rea::supervisor {

namespace {

using evidence::SnapshotEntry;

std::vector<SnapshotEntry> decoded(const std::vector<SnapshotEntry>& entries) {
  std::vector<SnapshotEntry> out;
  out.reserve(entries.size());
  for (const auto& entry : entries) {
    SnapshotEntry copy = entry;
    if (!evidence::isValidUtf8(copy.path)) copy.path = evidence::sanitizeUtf8(copy.path);
    if (copy.symlinkTarget && !evidence::isValidUtf8(*copy.symlinkTarget)) {
      copy.symlinkTarget = evidence::sanitizeUtf8(*copy.symlinkTarget);
    }
    out.push_back(std::move(copy));
  }
  return out;
}

evidence::FileState stateOf(const SnapshotEntry& entry) {
  evidence::FileState state;
  state.path = entry.path;
  state.type = static_cast<evidence::FileType>(entry.type);  // same enumerator order
  state.mode = entry.mode;
  state.size = entry.size;
  state.sha256 = entry.sha256;
  state.symlinkTarget = entry.symlinkTarget;
  return state;
}

std::vector<evidence::FileState> statesOf(const std::vector<SnapshotEntry>& entries) {
  std::vector<evidence::FileState> states;
  states.reserve(entries.size());
  for (const auto& entry : decoded(entries))
    states.push_back(stateOf(entry));
  return states;
}

evidence::FileStatus statusOf(evidence::ChangeStatus status) {
  return static_cast<evidence::FileStatus>(status);  // same enumerator order
}

CheckpointRecord missingCheckpoint(const char* name) {
  CheckpointRecord checkpoint;
  checkpoint.name = name;
  checkpoint.truncated = true;
  checkpoint.missing = true;
  return checkpoint;
}

}  // namespace

evidence::FileState fileStateFrom(const SnapshotEntry& entry) {
  return stateOf(decoded({entry}).front());
}

std::vector<evidence::FileEffect> fileEffectsBetween(const std::vector<SnapshotEntry>& before,
                                                     const std::vector<SnapshotEntry>& after) {
  std::vector<evidence::FileEffect> effects;
  for (const auto& change : evidence::classify(decoded(before), decoded(after))) {
    evidence::FileEffect effect;
    effect.path = change.path;
    effect.status = statusOf(change.status);
    if (change.before) effect.before = stateOf(*change.before);
    if (change.after) effect.after = stateOf(*change.after);
    effects.push_back(std::move(effect));
  }
  return effects;
}

FilesystemEvidence assembleFilesystem(const FilesystemRecord& record, uint64_t t0MonoNs,
                                      int64_t timeBucketMs, int64_t fallbackAfterMs) {
  std::vector<CheckpointRecord> checkpoints = record.checkpoints;
  if (checkpoints.empty() || checkpoints.front().name != "before") {
    checkpoints.insert(checkpoints.begin(), missingCheckpoint("before"));
  }
  bool afterMissing = checkpoints.back().name != "after_settlement";
  if (afterMissing) checkpoints.push_back(missingCheckpoint("after_settlement"));

  FilesystemEvidence out;
  const CheckpointRecord* previous = nullptr;
  int64_t lastMs = 0;
  for (size_t i = 0; i < checkpoints.size(); ++i) {
    const CheckpointRecord& record = checkpoints[i];
    evidence::Checkpoint checkpoint;
    checkpoint.name = record.name;
    if (i == 0) {
      checkpoint.atMs = 0;
    } else if (afterMissing && i + 1 == checkpoints.size()) {
      checkpoint.atMs = fallbackAfterMs;
    } else {
      int64_t rawMs = record.atNs <= t0MonoNs ? 0 : int64_t((record.atNs - t0MonoNs) / 1000000);
      checkpoint.atMs = evidence::bucketMs(rawMs, timeBucketMs);
    }
    checkpoint.atMs = std::max(checkpoint.atMs, lastMs);  // B §4.7: non-decreasing
    lastMs = checkpoint.atMs;
    checkpoint.files = statesOf(record.files);
    if (i > 0 && !record.missing && !previous->missing) {
      checkpoint.effects = fileEffectsBetween(previous->files, record.files);
    }
    checkpoint.truncated = record.truncated;
    out.truncated |= record.truncated;
    out.checkpoints.push_back(std::move(checkpoint));
    previous = &record;
  }

  const CheckpointRecord& before = checkpoints.front();
  const CheckpointRecord& after = checkpoints.back();
  out.filesBefore = statesOf(before.files);
  out.filesAfter = statesOf(after.files);
  if (!before.missing && !after.missing)
    out.effects = fileEffectsBetween(before.files, after.files);
  return out;
}

}  // namespace rea::supervisor
