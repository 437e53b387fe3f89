#include "helpers/common/standalone-plan.h"

#include <kj/debug.h>
#include <nlohmann/json.hpp>

namespace rea::helper {

evidence::Scenario scenarioParts(const evidence::Json& parts) {
  KJ_REQUIRE(parts.is_object(), "the scenario parts are not a JSON object");
  // The members a scenario requires, as placeholders: only the parts are used.
  evidence::Json scenario = {{"approved", true}, {"executable", "/"}, {"working_directory", "/"}};
  for (const char* key : {"command_shims", "replay", "limits"}) {
    auto it = parts.find(key);
    if (it != parts.end()) scenario[key] = *it;
  }
  evidence::ScenarioParseResult result = evidence::parseScenario(scenario);
  if (!result.issues.empty()) {
    const evidence::Issue& first = result.issues.front();
    KJ_FAIL_REQUIRE("invalid scenario part", first.path, first.message);
  }
  return std::move(*result.scenario);
}

}  // namespace rea::helper
