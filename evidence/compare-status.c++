#include "evidence/compare-status.h"

namespace rea::evidence {

namespace {

constexpr std::array<CompareStatus, 6> ALL = {CompareStatus::UNCHANGED, CompareStatus::ADDED,
                                              CompareStatus::REMOVED,   CompareStatus::CHANGED,
                                              CompareStatus::TRUNCATED, CompareStatus::UNKNOWN};

}  // namespace

const char* compareStatusName(CompareStatus status) {
  switch (status) {
    case CompareStatus::UNCHANGED:
      return "unchanged";
    case CompareStatus::ADDED:
      return "added";
    case CompareStatus::REMOVED:
      return "removed";
    case CompareStatus::CHANGED:
      return "changed";
    case CompareStatus::TRUNCATED:
      return "truncated";
    case CompareStatus::UNKNOWN:
      return "unknown";
  }
  return "unknown";
}

std::optional<CompareStatus> parseCompareStatus(const std::string& name) {
  for (CompareStatus status : ALL) {
    if (name == compareStatusName(status)) return status;
  }
  return std::nullopt;
}

bool differs(CompareStatus status) {
  return status == CompareStatus::CHANGED || status == CompareStatus::ADDED ||
         status == CompareStatus::REMOVED;
}

CompareStatus classifyCollection(bool equal, bool leftEmpty, bool rightEmpty) {
  if (equal) return CompareStatus::UNCHANGED;
  if (leftEmpty) return CompareStatus::ADDED;
  if (rightEmpty) return CompareStatus::REMOVED;
  return CompareStatus::CHANGED;
}

}  // namespace rea::evidence
