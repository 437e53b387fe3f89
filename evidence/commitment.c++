#include "evidence/commitment.h"

#include "evidence/canonical-json.h"
#include "evidence/sha256.h"

namespace rea::evidence {

std::string commitment(const Json& value) {
  return sha256Hex(canonicalJson(value));
}

}  // namespace rea::evidence
