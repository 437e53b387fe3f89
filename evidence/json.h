#pragma once
// The JSON value type every evidence module uses. Insertion-ordered so that printed Evidence
// keeps the field order of SPEC B §4 (consumers do not depend on it: ids use canonical JSON).
// Only .c++ files that parse or print include <nlohmann/json.hpp>.

#include <nlohmann/json_fwd.hpp>

namespace rea::evidence {

using Json = nlohmann::ordered_json;

}  // namespace rea::evidence
