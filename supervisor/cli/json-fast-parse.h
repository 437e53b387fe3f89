#pragma once
// The fast path of readJsonFile (input-file.h): a JSON parser for the documents rea writes,
// several times faster than nlohmann's on string-heavy Evidence (a capture is mostly escaped
// terminal output), where most of a comparison's time went. It is only ever a shortcut: it
// accepts a subset of JSON and declines everything else (any error, a number with a fraction or
// an exponent or beyond 64 bits, a byte order mark, nesting deeper than `maxDepth`), and the
// caller then parses the text with nlohmann as before, so every error and every unusual
// document is handled exactly as it was. What it accepts it reads as nlohmann does: integers
// without a sign are unsigned, `-0` is the signed 0, a repeated key keeps its first place and
// its last value, strings must be UTF-8 without unescaped control characters and paired
// surrogate escapes.
//
// Errors: none thrown apart from allocation failure.

#include <cstddef>
#include <optional>
#include <string_view>

#include "evidence/json.h"

namespace rea::supervisor {

std::optional<evidence::Json> parseJsonFast(std::string_view text, size_t maxDepth);
// The value, or nullopt when declined (see above).

class ParseProgress {
 public:
  virtual void consumed(size_t offset) = 0;
  // The parser no longer reads text before `offset` (it copies what it keeps), so the caller
  // may release it. Called between the elements of arrays, about once per MiB.
 protected:
  ~ParseProgress() = default;
};

std::optional<evidence::Json> parseJsonFast(std::string_view text, size_t maxDepth,
                                            ParseProgress& progress);
// The same, telling `progress` how far it has read. Once text was released, a declined
// document must be read again for the fallback parser.

}  // namespace rea::supervisor
