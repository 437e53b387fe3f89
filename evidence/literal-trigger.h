#pragma once
// The `terminal_literal` checkpoint trigger (SPEC B §6.10): counts occurrences of a literal in
// the normalised terminal output, chunk by chunk, with the baseline's exact carry-over rule.
// Owns its count and carried tail; the checkpoint coordinator owns one per literal checkpoint.
//
// The baseline works on JavaScript strings, so the trigger works on UTF-16 code units: the tail
// is the last len(value)-1 *code units* of `tail + chunk`, and may therefore start with half of
// a surrogate pair, exactly as in the baseline.
//
// Errors: none thrown (apart from std::bad_alloc).

#include <cstdint>
#include <string>
#include <string_view>

namespace rea::evidence {

std::u16string toUtf16(std::string_view utf8);
// The UTF-16 code units a JavaScript UTF-8 decoder would produce (each ill-formed sequence
// becomes one U+FFFD, WHATWG semantics, as in utf.h). Lets a coordinator decode a chunk once and
// feed it to many triggers.

class LiteralTrigger {
 public:
  LiteralTrigger(std::string_view value, uint64_t occurrence);
  // `value`: the scenario's literal (1-10000 UTF-16 code units after validation); `occurrence`:
  // how many counted occurrences fire the trigger (1-1000).

  bool feed(std::string_view normalisedChunk);
  bool feed(std::u16string_view normalisedChunk);
  // Counts the chunk: combined = tail + chunk; count += non-overlapping occurrences of the value
  // in combined (left to right, resuming after each hit); tail = the last len(value)-1 code units
  // of combined. Returns true exactly once: on the chunk that brings count to `occurrence` or
  // beyond. Later chunks are still counted but return false. The count is the baseline's, which
  // can count one occurrence twice when it overlaps the carried tail (values with a repeated
  // prefix such as "aba"); that is reproduced on purpose. An empty value (rejected by scenario
  // validation) never counts.

  uint64_t count() const { return counted; }
  bool fired() const { return hasFired; }
  const std::u16string& tail() const { return carried; }

 private:
  std::u16string value;
  uint64_t occurrence;
  uint64_t counted = 0;
  bool hasFired = false;
  std::u16string carried;
};

}  // namespace rea::evidence
