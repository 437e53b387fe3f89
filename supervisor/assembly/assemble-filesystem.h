#pragma once
// Filesystem assembly (SPEC B §4.3, §4.7, §4.8, §6.9, §6.10; A6, A13): turns the checkpoint
// driver's record (raw entries, monotonic completion times) into the capture's
// `filesystem_checkpoints` (each checkpoint's effects relative to the one before it, so a file
// created and removed between two checkpoints stays visible), `files_before`, `files_after` and
// `filesystem_effects` (BEFORE against AFTER, not chained), plus the truncation verdict. Pure.
//
// Entry paths and symlink targets hold name bytes as the filesystem gave them; the capture's
// strings must be UTF-8, so they are decoded as UTF-8 with U+FFFD replacements (sanitizeUtf8)
// before effects are classified and sorted (UTF-16 order, B §4.7).
//
// A checkpoint the lost fswatch helper never answered (`missing`) is emitted with no files, no
// effects and `truncated: true`; effects against it are not computed (an unknown snapshot must
// not read as "everything deleted"), and neither is `filesystem_effects` when BEFORE or AFTER is
// missing. The capture carries a `filesystem` residual unknown in that case (capture-assembly).
//
// Errors: none thrown (apart from std::bad_alloc).

#include <cstdint>
#include <vector>

#include "evidence/capture.h"
#include "supervisor/run/checkpoint-driver.h"

namespace rea::supervisor {

struct FilesystemEvidence {
  std::vector<evidence::Checkpoint> checkpoints;  // `before` first, `after_settlement` last
  std::vector<evidence::FileState> filesBefore;
  std::vector<evidence::FileState> filesAfter;
  std::vector<evidence::FileEffect> effects;
  bool truncated = false;  // any checkpoint truncated (B §4.8)
};

evidence::FileState fileStateFrom(const evidence::SnapshotEntry& entry);
// The same six fields; path and symlink target decoded as UTF-8 (see above).

std::vector<evidence::FileEffect> fileEffectsBetween(
    const std::vector<evidence::SnapshotEntry>& before,
    const std::vector<evidence::SnapshotEntry>& after);
// classify() of the decoded entries, as FileEffect values sorted by path (UTF-16 order).

FilesystemEvidence assembleFilesystem(const FilesystemRecord& record, uint64_t t0MonoNs,
                                      int64_t timeBucketMs, int64_t fallbackAfterMs);
// `at_ms` = completion time − T0, bucketed (A6); `before` is 0. If the record lacks `before` or
// `after_settlement` (a run that never finished its checkpoints) they are added as missing, the
// latter at `fallbackAfterMs` (already bucketed).

}  // namespace rea::supervisor
