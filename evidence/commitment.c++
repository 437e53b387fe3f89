#include "evidence/commitment.h"

#include "evidence/canonical-json.h"
#include "evidence/sha256.h"

namespace rea::evidence {

std::string commitment(const Json& value) {
  // Streamed into the hash: the canonical text of a large capture never exists as one string.
  Sha256 hash;
  canonicalJsonTo(value, [&hash](std::string_view piece) { hash.update(piece); });
  return hash.finishHex();
}

}  // namespace rea::evidence
