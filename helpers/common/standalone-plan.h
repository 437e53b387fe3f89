#pragma once
// Standalone modes only (`rea-<helper> --standalone request.json`): the scenario parts a request
// file holds (`command_shims`, `replay`, `limits`, in the scenario's own JSON form) parsed and
// validated by the scenario parser, exactly as `rea` would. A helper serving the supervisor never
// sees scenario JSON: its plans arrive typed (helpers/common/plan-builder.h builds them for both).
//
// Errors: scenarioParts() throws kj::Exception (FAILED) naming the first issue's path and rule.

#include "evidence/json.h"
#include "evidence/scenario.h"

namespace rea::helper {

evidence::Scenario scenarioParts(const evidence::Json& parts);
// `parts`: a JSON object with any of the scenario members "command_shims", "replay" and
// "limits" (absent ones take their defaults). The other members of the returned scenario are
// placeholders.

}  // namespace rea::helper
