#pragma once
// Commitments (SPEC B §5.1): H(x) = lowercase hex SHA-256 of the UTF-8 bytes of the canonical
// JSON of x. Used for the manifest hashes and (with the `ev_` prefix) Evidence ids.
//
// Errors: as canonicalJson and Sha256.

#include <string>

#include "evidence/json.h"

namespace rea::evidence {

std::string commitment(const Json& value);

}  // namespace rea::evidence
