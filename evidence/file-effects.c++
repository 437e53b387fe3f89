#include "evidence/file-effects.h"

#include <map>

#include "evidence/utf.h"

namespace rea::evidence {

const char* entryTypeName(EntryType type) {
  switch (type) {
    case EntryType::FILE:
      return "file";
    case EntryType::DIRECTORY:
      return "directory";
    case EntryType::SYMLINK:
      return "symlink";
    case EntryType::OTHER:
      return "other";
  }
  return "other";
}

const char* changeStatusName(ChangeStatus status) {
  switch (status) {
    case ChangeStatus::CREATED:
      return "created";
    case ChangeStatus::MODIFIED:
      return "modified";
    case ChangeStatus::DELETED:
      return "deleted";
    case ChangeStatus::UNCHANGED:
      return "unchanged";
  }
  return "unchanged";
}

bool operator==(const SnapshotEntry& a, const SnapshotEntry& b) {
  return a.path == b.path && a.type == b.type && a.mode == b.mode && a.size == b.size &&
         a.sha256 == b.sha256 && a.symlinkTarget == b.symlinkTarget;
}

bool operator!=(const SnapshotEntry& a, const SnapshotEntry& b) {
  return !(a == b);
}

int comparePaths(std::string_view a, std::string_view b) {
  int order = compareUtf16(a, b);
  if (order != 0) return order;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

namespace {

struct PathLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return comparePaths(a, b) < 0;
  }
};

}  // namespace

std::vector<EntryChange> classify(const std::vector<SnapshotEntry>& before,
                                  const std::vector<SnapshotEntry>& after) {
  // Pointers into the two lists, keyed by path; a later duplicate replaces an earlier one.
  std::map<std::string, std::pair<const SnapshotEntry*, const SnapshotEntry*>, PathLess> byPath;
  for (const auto& entry : before)
    byPath[entry.path].first = &entry;
  for (const auto& entry : after)
    byPath[entry.path].second = &entry;

  std::vector<EntryChange> changes;
  changes.reserve(byPath.size());
  for (const auto& [path, pair] : byPath) {
    EntryChange change;
    change.path = path;
    if (pair.first != nullptr) change.before = *pair.first;
    if (pair.second != nullptr) change.after = *pair.second;
    if (pair.first == nullptr) {
      change.status = ChangeStatus::CREATED;
    } else if (pair.second == nullptr) {
      change.status = ChangeStatus::DELETED;
    } else if (*pair.first == *pair.second) {
      change.status = ChangeStatus::UNCHANGED;
    } else {
      change.status = ChangeStatus::MODIFIED;
    }
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace rea::evidence
