#pragma once
// Filesystem snapshot entries and the classification of two snapshots into effects (SPEC B §4.3
// FileState/FileEffect, §6.10 `classify`). Pure: the fswatch helper produces the entries, the
// capture model turns effects into checkpoint and top-level `filesystem_effects` JSON.
//
// The types mirror the capture model's FileState/FileEffect field for field (same names, same
// enumerator order) under their own names, so both headers can live in one translation unit.
//
// Errors: none thrown (apart from std::bad_alloc).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rea::evidence {

enum class EntryType { FILE, DIRECTORY, SYMLINK, OTHER };

const char* entryTypeName(EntryType type);
// "file", "directory", "symlink", "other".

inline constexpr const char* OUTSIDE_DECLARED_ROOT = "<outside-declared-root>";
// The `symlink_target` of a symlink whose lexically resolved target is not under its root.

struct SnapshotEntry {
  std::string path;  // `root_<i>:<relative>`; the relative part holds the file name bytes as the
                     // filesystem gave them (not necessarily UTF-8); "." for the root itself
  EntryType type = EntryType::FILE;
  int64_t mode = 0;                          // full st_mode from lstat (file-type bits included)
  int64_t size = 0;                          // lstat st_size
  std::optional<std::string> sha256;         // 64 lowercase hex, only for hashed regular files
  std::optional<std::string> symlinkTarget;  // symlinks only: root-relative, "." or
                                             // OUTSIDE_DECLARED_ROOT
};

bool operator==(const SnapshotEntry& a, const SnapshotEntry& b);
bool operator!=(const SnapshotEntry& a, const SnapshotEntry& b);
// Equal when all six fields are equal (the `unchanged` rule of §6.10).

enum class ChangeStatus { CREATED, MODIFIED, DELETED, UNCHANGED };

const char* changeStatusName(ChangeStatus status);
// "created", "modified", "deleted", "unchanged".

struct EntryChange {
  std::string path;
  ChangeStatus status = ChangeStatus::UNCHANGED;
  std::optional<SnapshotEntry> before;  // absent for `created`
  std::optional<SnapshotEntry> after;   // absent for `deleted`
};

int comparePaths(std::string_view a, std::string_view b);
// Entry path order: UTF-16 code units (compareUtf16), then raw bytes as a tie-break so that two
// names that differ only in invalid UTF-8 (both read as U+FFFD) still have a fixed order.

std::vector<EntryChange> classify(const std::vector<SnapshotEntry>& before,
                                  const std::vector<SnapshotEntry>& after);
// SPEC B §6.10: one change per path of the union, sorted by comparePaths; `created` (only in
// `after`), `deleted` (only in `before`), `unchanged` (all six fields equal), else `modified`.
// Unchanged entries are included. Within one list a repeated path keeps its last entry (a
// snapshot never repeats a path; imported data might).

}  // namespace rea::evidence
