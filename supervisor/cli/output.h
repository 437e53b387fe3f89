#pragma once
// How rea prints its results (A12): one JSON document on stdout (compact, or indented with
// --pretty), written in full or not at all; errors are the JSON error object on stdout (exit 1)
// plus one plain line on stderr.
//
// Errors: none thrown; a failed stdout write is reported on stderr and turns into exit 1.

#include <string>

#include "evidence/error.h"
#include "evidence/json.h"

namespace rea::supervisor {

int printJson(const evidence::Json& value, bool pretty);
// Checks that it can be serialised (every string UTF-8), then streams it to stdout in 64 KiB
// writes (a large capture is never held again as one string); returns the exit code (0, or 1
// if it cannot be serialised or stdout failed).

int writeJsonFile(const std::string& path, const evidence::Json& value, bool pretty);
// Writes the document to a temporary file beside `path`, then renames it over `path`: the file
// holds the whole document or is left as it was. Returns 0, or 1 after a line on stderr.

int printText(const std::string& text);
// Writes a finished non-JSON result (an asciicast, an HTML report) in full; returns 0 or 1.

int printError(const evidence::CommandError& error, bool pretty);
// Prints the error object on stdout and its summary on stderr; returns 1.

}  // namespace rea::supervisor
