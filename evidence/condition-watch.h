#pragma once
// ConditionWatch: decides when the `when` condition of one armed reactive event holds
// (docs/scenario.md, "Events that wait"). Pure: the supervisor's interaction driver feeds it
// what the capture observed since the event was armed, already normalised, so a pattern never
// sees a secret or a sensitive input (A3).
//
//   output_literal  counted like a terminal_literal checkpoint (literal-trigger.h)
//   output_regex    a POSIX extended regular expression (as `grep -E`; ^ and $ also match at
//                   line ends; carriage returns are left out), searched in the text since arming
//                   with glibc's regexec, whose time does not explode on nested repetitions; each
//                   match consumes the text up to its end (as expect does), so `occurrence` counts
//                   non-overlapping matches; text that has not matched is kept up to its last
//                   MAX_REGEX_WINDOW bytes
//   screen_literal  the literal appears on the screen (the given row, or any row)
//   checkpoint      the named checkpoint was triggered
//   root_exit       the root was reaped
//
// Errors: none thrown (apart from std::bad_alloc). The pattern must have been validated by the
// scenario parser.

#include <cstddef>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/literal-trigger.h"
#include "evidence/scenario.h"

namespace rea::evidence {

class ConditionWatch {
 public:
  static constexpr size_t MAX_REGEX_WINDOW = 4096;
  // Bytes of unmatched output a regex condition keeps (bounds the work per chunk).

  explicit ConditionWatch(const Condition& condition);

  bool output(std::string_view normalisedChunk);
  // A normalised output chunk written after arming. True once the condition holds.
  bool screen(const std::vector<std::string>& normalisedLines);
  // The rendered screen now (one line per row, top first). True once the condition holds.
  bool checkpoint(const std::string& name);
  bool rootExited();

  bool held() const { return isHeld; }
  bool watchesOutput() const;
  bool watchesScreen() const;

 private:
  Condition condition;
  bool isHeld = false;
  std::optional<LiteralTrigger> literal;
  struct Pattern;
  std::shared_ptr<Pattern> regex;  // output_regex: the compiled pattern
  std::string window;
  int matches = 0;
};

bool checkPattern(const std::string& pattern, std::string& error);
// True when `pattern` is a usable output_regex: it compiles as a POSIX extended regular
// expression, has no back-reference (\1: exponential to match) and no repetition bound above
// 100, and does not match the empty string (it would hold at once). Else `error` says why.

}  // namespace rea::evidence
