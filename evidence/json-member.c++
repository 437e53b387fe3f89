#include "evidence/json-member.h"

#include <nlohmann/json.hpp>

namespace rea::evidence {

const Json& member(const Json& object, const char* key) {
  static const Json NONE;
  if (!object.is_object()) return NONE;
  auto it = object.find(key);
  return it == object.end() ? NONE : *it;
}

}  // namespace rea::evidence
