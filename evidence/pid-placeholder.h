#pragma once
// Matching of the `<pid>` placeholder in the default comparison (SPEC A15): a run's pids are
// run-specific by nature, so normalisation replaces a number that happens to equal one of them
// by `<pid>` in one capture while the other capture keeps the number. In the default
// comparison a `<pid>` placeholder on one side therefore matches any maximal run of ASCII
// digits on the other side (and `<pid>` on both sides matches byte for byte); every other byte
// must be equal. `--baseline-semantics` keeps B's exact comparison and does not use this.
//
// Pure; errors: none thrown.

#include <cstddef>
#include <string_view>
#include <vector>

namespace rea::evidence {

constexpr std::string_view PID_PLACEHOLDER = "<pid>";

struct PidSubstitution {
  // One `<pid>` matched against a digit run: [leftBegin, leftEnd) of the left text corresponds
  // to [rightBegin, rightEnd) of the right text.
  size_t leftBegin, leftEnd, rightBegin, rightEnd;
};

struct PidAlignment {
  size_t left = 0;     // bytes of the left text that matched (the first differing offset)
  size_t right = 0;    // bytes of the right text that matched
  bool equal = false;  // both texts matched completely
  std::vector<PidSubstitution> substitutions;  // in text order

  size_t leftOffsetOf(size_t rightOffset) const;
  size_t rightOffsetOf(size_t leftOffset) const;
  // Maps an offset of one matched prefix to the other side (an offset inside a substituted
  // digit run or placeholder maps to the start of its counterpart); identity without
  // substitutions.
};

PidAlignment alignUpToPids(std::string_view left, std::string_view right);
// Walks both texts left to right. At a `<pid>` on one side facing the first digit of a maximal
// digit run on the other (no digit right before it), the placeholder and the whole run match;
// otherwise bytes must be equal. Stops at the first mismatch.

bool equalUpToPids(std::string_view left, std::string_view right);
// alignUpToPids(left, right).equal, without keeping the substitutions.

}  // namespace rea::evidence
