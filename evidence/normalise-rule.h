#pragma once
// One step of text normalisation (SPEC B §4.6.1, A5), written so that the same code serves a
// whole text (normalise()) and a stream of PTY reads (ChunkNormaliser). A rule rewrites its
// input left to right; when the input may continue it stops before the shortest suffix that a
// continuation could still turn into (part of) a match, and the caller presents that suffix
// again with more input. Because every rule is exact on its own, a chain of rules is exact too:
// the concatenated streaming output equals the rules applied to the concatenated input.
//
// Owns: the compiled form of a needle, a token set or a JavaScript replacement string.
// Errors: none thrown (every byte string is valid input; invalid UTF-8 is passed through).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rea::evidence {

class Substitution {
  // A replacement string with JavaScript `String.prototype.replaceAll(string, replacement)`
  // semantics: `$$` -> `$`, `$&` -> the match, `` $` `` -> the input before the match, `$'` ->
  // the input after the match; every other `$` (including `$1`, `$<name>`, a final `$`) is
  // literal, because a string pattern has no capture groups.
 public:
  explicit Substitution(std::string_view replacement);

  bool usesBefore() const { return before; }
  bool usesAfter() const { return after; }

  void expand(std::string_view textBefore, std::string_view match, std::string_view textAfter,
              std::string& out) const;
  // Appends the expansion for one match. `textBefore`/`textAfter` are the rule's whole input
  // before / after the match (they may be empty when !usesBefore() / !usesAfter()).

 private:
  enum class Part : uint8_t { LITERAL, MATCH, BEFORE, AFTER };
  struct Piece {
    Part part;
    std::string literal;
  };
  std::vector<Piece> pieces;
  bool before = false;
  bool after = false;
};

struct RuleProgress {
  size_t consumed;
  // Bytes of the input that were rewritten and appended to the output. When the input may
  // continue, the rest must be presented again (with more input appended).
  bool waitsForEnd;
  // True when the output depends on the end of the input (a `$'` replacement has matched):
  // nothing more can be released until the input is final.
};

class NormaliseRule {
 public:
  virtual ~NormaliseRule() noexcept(false) = default;

  static constexpr size_t WHOLE_HISTORY = SIZE_MAX;

  virtual size_t lookback() const = 0;
  // How many already-consumed input bytes before `start` apply() may read (WHOLE_HISTORY for a
  // `` $` `` replacement). A streaming caller keeps at least this much history.

  virtual RuleProgress apply(std::string_view input, size_t start, bool final,
                             std::string& out) const = 0;
  // Rewrites input[start..] and appends the result to `out`. input[0..start) is input that was
  // consumed by earlier calls (at least lookback() bytes of it, or all of it if shorter); the
  // rule only reads it. `final` says no more input follows. With `final` the whole rest is
  // consumed. Without it, the rule consumes everything except a suffix that a continuation
  // could still change, and never more than it must hold back.

  static std::unique_ptr<NormaliseRule> literal(std::string needle, std::string_view replacement);
  // Replace-all of a literal needle, non-overlapping, left to right (B0.1), with a JavaScript
  // replacement string. Holds back the longest suffix that is a proper prefix of the needle.
  // Used for secrets, sensitive echoes, paths and patterns. An empty needle is everyPosition().

  static std::unique_ptr<NormaliseRule> everyPosition(std::string_view replacement);
  // The empty pattern: the replacement goes before every character and at the end (JavaScript
  // inserts it between every UTF-16 code unit and at both ends). A UTF-8 sequence is never
  // split: a character outside the BMP (two UTF-16 code units in JavaScript) gets one insertion
  // before it, not one between its surrogates. An ill-formed sequence counts as one character
  // per maximal invalid subpart (one U+FFFD in a WHATWG decoder, so one code unit in JS).

  static std::unique_ptr<NormaliseRule> digitTokens(std::vector<std::string> tokens, bool hostPorts,
                                                    std::string replacement);
  // Replaces every maximal run of ASCII digits (not preceded and not followed by a digit) that
  // equals one of `tokens` (decimal numbers as text). With `hostPorts` it also replaces a run of
  // 2-5 digits that follows a `:` in a host:port context (isHostPortContext()) and is followed
  // by the end or by a character outside [A-Za-z0-9_] (SPEC A5 (2)). Holds back a trailing digit
  // run only while it could still become a match.
};

}  // namespace rea::evidence
