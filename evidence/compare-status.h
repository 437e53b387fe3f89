#pragma once
// The statuses of a comparison (SPEC B §9.3): each dimension's and the overall `status` of the
// comparison object (compare.h), as a value instead of the JSON string, which only
// compareStatusName() writes and parseCompareStatus() reads.
//
// Errors: none thrown.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace rea::evidence {

enum class CompareStatus : uint8_t { UNCHANGED, ADDED, REMOVED, CHANGED, TRUNCATED, UNKNOWN };

const char* compareStatusName(CompareStatus status);
// The JSON text: "unchanged", "added", "removed", "changed", "truncated" or "unknown".

std::optional<CompareStatus> parseCompareStatus(const std::string& name);
// The inverse of compareStatusName(); nullopt for any other text.

bool differs(CompareStatus status);
// changed, added or removed: the captures disagree (unknown and truncated prove nothing).

CompareStatus classifyCollection(bool equal, bool leftEmpty, bool rightEmpty);
// B §9.3: unchanged, else added (left empty), else removed (right empty), else changed.

template <size_t N>
CompareStatus overallStatus(const std::array<CompareStatus, N>& dimensions) {
  // B §9.3: truncated > changed/added/removed (all reported `changed`) > unknown > unchanged.
  bool truncated = false, changed = false, unknown = false;
  for (CompareStatus status : dimensions) {
    truncated = truncated || status == CompareStatus::TRUNCATED;
    changed = changed || differs(status);
    unknown = unknown || status == CompareStatus::UNKNOWN;
  }
  if (truncated) return CompareStatus::TRUNCATED;
  if (changed) return CompareStatus::CHANGED;
  if (unknown) return CompareStatus::UNKNOWN;
  return CompareStatus::UNCHANGED;
}

}  // namespace rea::evidence
