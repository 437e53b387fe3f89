#pragma once
// Canonical JSON (RFC 8785 / JCS, as implemented by the `canonicalize` npm package 3.0.0 that
// the reference uses): the byte string every commitment and Evidence id is computed over
// (SPEC B §5.3).
//
// - No whitespace; arrays keep their order; object members sorted by key in UTF-16 code-unit
//   order (not UTF-8 byte order).
// - Strings: `"` and `\` escaped; \b \t \n \f \r; other code points below U+0020 as \u00xx
//   (lowercase hex); everything else literal UTF-8 (including `/`, DEL, U+2028/U+2029).
// - Numbers as ECMAScript's Number-to-String: every number is first a double, as it is in
//   JavaScript (so integers beyond 2^53 print as the double they round to), then printed in
//   the shortest round-trip form (`1e+21`, `1e-7`, `0.5`, `-0` → `0`).
//
// Errors: throws std::invalid_argument for a value JSON cannot hold (a discarded value or
// binary), which only a bug can produce.

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "evidence/json.h"

namespace rea::evidence {

std::string canonicalJson(const Json& value);
// The canonical serialisation of `value`.

using CanonicalSink = std::function<void(std::string_view)>;

void canonicalJsonTo(const Json& value, const CanonicalSink& sink);
// The same bytes, handed to `sink` in pieces of about 64 KiB: hashing a large document this way
// never holds its whole serialisation (a 10 MB capture would otherwise need one more copy).

void canonicalObjectTo(std::vector<std::pair<std::string_view, const Json*>> members,
                       const CanonicalSink& sink);
// The canonical serialisation of the object with these members (keys unique; sorted here), for
// a projection that leaves members out or replaces some without copying the rest.

std::string formatEcmaNumber(double value);
// ECMAScript Number::toString(value) for a finite value.

}  // namespace rea::evidence
