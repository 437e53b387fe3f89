#pragma once
// Reading a JSON file named on the command line (SPEC B §10.1): read whole, at most 64 MiB,
// UTF-8, JSON. Every failure is the matching short-form error of B §2.4, never an exception:
// a missing or unreadable file, a file over the limit, invalid UTF-8 or JSON, and JSON nested
// deeper than MAX_JSON_DEPTH (which would otherwise exhaust the parser's stack: a hostile file
// must end in a structured error, not a crash). "-" reads standard input. Opening a FIFO and
// reading a FIFO, pipe or terminal may wait for a writer as long as it takes: call this before
// blocking any termination signal (capture-command.c++), so that SIGINT, SIGTERM or SIGHUP
// still end such a wait at once (issue 18.5). Parsing takes json-fast-parse.h's fast path first
// and falls back to nlohmann for whatever it declines, so results and errors are nlohmann's. A
// regular file of 8 MiB or more is read into pages of its own that the fast parser gives back as
// it goes, so its text and its tree are not held whole at once (two 20 MB captures are read
// side by side by compare-process-captures); a file the fast path declines is then read again.
//
// Errors: none thrown; the result carries either the value or the CommandError.

#include <optional>
#include <string>

#include "evidence/error.h"
#include <nlohmann/json.hpp>  // InputFile holds a Json by value

#include "evidence/json.h"

namespace rea::supervisor {

constexpr size_t MAX_JSON_DEPTH = 1000;

struct InputFile {
  std::optional<evidence::Json> value;
  std::optional<evidence::CommandError> error;
};

InputFile readJsonFile(const std::string& path);
// `path` "-" reads standard input.

evidence::TextPosition textPosition(const std::string& text, size_t byte);
// The line and column (from 1) of the byte at offset `byte - 1`, as nlohmann's parse_error
// counts it: where a person looks for the mistake.

size_t jsonNestingDepth(const std::string& text);
// Deepest [ / { nesting outside strings (a cheap pre-parse scan).

}  // namespace rea::supervisor
