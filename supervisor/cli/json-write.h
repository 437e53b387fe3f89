#pragma once
// Compact JSON text of a document, byte for byte what nlohmann's dump() (no indent, UTF-8 kept)
// gives, produced several times faster: strings go through evidence/json-string.h, which copies
// runs of plain bytes eight at a time where dump() looks at every byte. A capture of 10 MB of
// output is ~13 MB of JSON, and printing it was a fifth of a large capture's time (issue 20).
// Numbers with a fraction (rare in rea's documents) are written by nlohmann itself.
//
// Errors: none thrown apart from allocation failure. Strings are not checked (the caller has
// checked that every one is UTF-8, as dump() would insist).

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "evidence/json.h"

namespace rea::supervisor {

void writeCompactJson(const evidence::Json& value,
                      const std::function<void(std::string_view)>& write);
// Calls `write` with consecutive pieces of the text (about 64 KiB each; the last may be
// shorter), in order.

std::string compactJson(const evidence::Json& value);
// The whole text at once (tests, small documents).

}  // namespace rea::supervisor
