#include "evidence/pid-placeholder.h"

#include <algorithm>
#include <cstring>

namespace rea::evidence {
namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

bool placeholderAt(std::string_view text, size_t offset) {
  return text.substr(offset, PID_PLACEHOLDER.size()) == PID_PLACEHOLDER;
}

bool digitRunStartsAt(std::string_view text, size_t offset) {
  return offset < text.size() && isDigit(text[offset]) &&
         (offset == 0 || !isDigit(text[offset - 1]));
}

size_t digitRunEnd(std::string_view text, size_t offset) {
  while (offset < text.size() && isDigit(text[offset]))
    ++offset;
  return offset;
}

// How many bytes `left` and `right` share from their starts, compared a block at a time.
size_t commonPrefix(std::string_view left, std::string_view right) {
  constexpr size_t BLOCK = 256;
  size_t limit = std::min(left.size(), right.size());
  size_t n = 0;
  while (n + BLOCK <= limit && std::memcmp(left.data() + n, right.data() + n, BLOCK) == 0)
    n += BLOCK;
  while (n < limit && left[n] == right[n])
    ++n;
  return n;
}

template <typename Record>
PidAlignment align(std::string_view left, std::string_view right, Record record) {
  PidAlignment result;
  size_t i = 0, j = 0;
  while (i < left.size() && j < right.size()) {
    // A substitution needs `<` facing a digit, so equal bytes are never one: skip them at once
    // (most of two 10 MB streams that match).
    size_t same = commonPrefix(left.substr(i), right.substr(j));
    i += same;
    j += same;
    if (i == left.size() || j == right.size()) break;
    if (placeholderAt(left, i) && digitRunStartsAt(right, j)) {
      size_t runEnd = digitRunEnd(right, j);
      record(result, PidSubstitution{i, i + PID_PLACEHOLDER.size(), j, runEnd});
      i += PID_PLACEHOLDER.size();
      j = runEnd;
    } else if (placeholderAt(right, j) && digitRunStartsAt(left, i)) {
      size_t runEnd = digitRunEnd(left, i);
      record(result, PidSubstitution{i, runEnd, j, j + PID_PLACEHOLDER.size()});
      i = runEnd;
      j += PID_PLACEHOLDER.size();
    } else {
      break;
    }
  }
  result.left = i;
  result.right = j;
  result.equal = i == left.size() && j == right.size();
  return result;
}

}  // namespace

size_t PidAlignment::leftOffsetOf(size_t rightOffset) const {
  auto after = std::upper_bound(
      substitutions.begin(), substitutions.end(), rightOffset,
      [](size_t offset, const PidSubstitution& s) { return offset < s.rightBegin; });
  if (after == substitutions.begin()) return rightOffset;
  const PidSubstitution& s = *(after - 1);
  if (rightOffset < s.rightEnd) return s.leftBegin;
  return s.leftEnd + (rightOffset - s.rightEnd);
}

size_t PidAlignment::rightOffsetOf(size_t leftOffset) const {
  auto after = std::upper_bound(
      substitutions.begin(), substitutions.end(), leftOffset,
      [](size_t offset, const PidSubstitution& s) { return offset < s.leftBegin; });
  if (after == substitutions.begin()) return leftOffset;
  const PidSubstitution& s = *(after - 1);
  if (leftOffset < s.leftEnd) return s.rightBegin;
  return s.rightEnd + (leftOffset - s.leftEnd);
}

PidAlignment alignUpToPids(std::string_view left, std::string_view right) {
  return align(left, right,
               [](PidAlignment& result, PidSubstitution s) { result.substitutions.push_back(s); });
}

bool equalUpToPids(std::string_view left, std::string_view right) {
  if (left == right) return true;
  return align(left, right, [](PidAlignment&, PidSubstitution) {}).equal;
}

}  // namespace rea::evidence
