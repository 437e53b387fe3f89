#pragma once
// Text normalisation and redaction N(text) (SPEC B §4.6.1 as changed by A3 and A5): the one
// function every recorded text goes through before it reaches the Evidence (raw frames,
// rendered lines and state, input data, shim arguments, protocol data, process commands).
// Owns the compiled rule list for one set of arguments (NormaliseContext).
//
// The steps, in this exact order (each one sees the output of the previous one):
//  1. Secrets: each non-empty secret value in `secret_aliases` order, then each sensitive echo
//     (A3, see sensitiveEcho()), replace all (literal) -> `<redacted>`.
//  2. Paths (if normalisePaths): `temporaryRoot` -> `<temporary-root>`, then `workingDirectory`
//     -> `<working-directory>`, then `executable` -> `<executable>`, then each filesystem root
//     i -> `<filesystem-root-i>`. Plain substring replacement, no boundary checks, strings as
//     written in the scenario (`/projX` -> `<working-directory>X`; `/proj/bin/tool` ->
//     `<working-directory>/bin/tool` because the working directory goes first). Empty strings
//     are skipped.
//  3. Pids (if normalisePids): every maximal run of ASCII digits equal to the decimal form of
//     one of the pids (<= 0 ignored) -> `<pid>` (`x4242` -> `x<pid>`, `42421` untouched). As
//     only maximal runs are compared, B's "longest number first" order cannot change the result.
//  4. Ports (if normalisePorts; both parts), A5 instead of B step 4: (1) every maximal digit run
//     equal to a port the harness allocated -> `<port>`; (2) a run of 2-5 digits right after a
//     `:` whose preceding text is a host (`localhost`, an IPv4 literal, `[IPv6]`, or a URL
//     authority `scheme://host`; exact grammar in host-port.h) and followed by the end or a
//     character outside [A-Za-z0-9_] -> `<port>`. `rc=127`, `12:30:45`, `:7`, `:123456` stay.
//  5. Each pattern in order: replace all literal occurrences with JavaScript replaceAll
//     semantics for the replacement (`$$`, `$&`, `` $` ``, `$'`; see Substitution). An empty
//     pattern inserts the replacement before every character and at the end; a character
//     outside the BMP receives one insertion, not one between its UTF-16 surrogates (which
//     would produce a lone surrogate, unrepresentable in UTF-8). `` $` `` and `$'` copy the
//     whole text before / after each match, so such a pattern can make the output quadratic in
//     the input, exactly as in JavaScript; scenario authors own that choice.
//
// All comparisons are on bytes of UTF-8 text, which for well-formed UTF-8 needles equals
// JavaScript's comparison on UTF-16 code units.
//
// A sensitive echo holding control characters is also redacted in the form a terminal with
// ECHOCTL shows it (caretEcho()), since that, not the raw byte, is what appears in the output.
//
// Errors: none thrown.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rea::evidence {

class NormaliseRule;

constexpr std::string_view NO_TEMPORARY_ROOT = "<no-temporary-root>";
// The temp-root argument for texts whose temp root must not be normalised (input data,
// protocol data, process commands; B §4.6.1 table). It never occurs in real output.

struct NormalisePattern {
  std::string pattern;      // literal, may be empty
  std::string replacement;  // JavaScript replacement string
};

struct NormaliseContext {
  std::vector<std::string> secrets;
  // Values of the `secret_aliases` environment variables in alias order. Empty values are
  // ignored (B: "whose environment value is non-empty").

  std::vector<std::string> sensitiveInputs;
  // The `data` of every sensitive input event, as written in the scenario. Their echoes
  // (sensitiveEcho()) are redacted like secrets, after the secrets.

  std::string temporaryRoot = std::string(NO_TEMPORARY_ROOT);
  std::string workingDirectory;
  std::string executable;
  std::vector<std::string> filesystemRoots;

  bool normalisePaths = true;
  bool normalisePids = true;
  bool normalisePorts = true;

  std::vector<int64_t> pids;
  // Process ids for step 3 (usually just the root PTY pid; none for input and protocol data).

  std::vector<int64_t> harnessPorts;
  // Ports the harness allocated itself (replay server, shim ledger): A5 (1). Values outside
  // 1..65535 are ignored.

  std::vector<NormalisePattern> patterns;
};

std::optional<std::string> sensitiveEcho(std::string_view inputData);
// The text a sensitive input is expected to echo (A3): the data without trailing CR and LF
// characters, if that is at least 4 characters long (UTF-16 code units, as every length in the
// spec); otherwise nullopt (too short to redact without destroying unrelated output).

std::optional<std::string> caretEcho(std::string_view echo);
// `echo` with every control character except TAB, LF and CR written as ECHOCTL does (`^A` for
// 0x01, `^?` for DEL); nullopt when it has none.

class Normaliser {
  // The rule list compiled from one NormaliseContext; apply it to many texts.
 public:
  explicit Normaliser(const NormaliseContext& context);
  ~Normaliser() noexcept(false);
  Normaliser(Normaliser&&);
  Normaliser& operator=(Normaliser&&);

  std::string operator()(std::string_view text) const;
  // N(text): all steps on a whole text.

  const std::vector<std::unique_ptr<NormaliseRule>>& rules() const { return ruleList; }
  // The steps as rules, in order; ChunkNormaliser runs them over a stream.

 private:
  std::vector<std::unique_ptr<NormaliseRule>> ruleList;
};

std::string normalise(std::string_view text, const NormaliseContext& context);
// Normaliser(context)(text). Prefer a Normaliser when applying one context to many texts.

}  // namespace rea::evidence
