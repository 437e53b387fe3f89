// Fuzz target: a scenario file as `rea capture-process` reads it (SPEC B §3, §10.1). The bytes
// take rea's own path: the nesting pre-scan (supervisor/cli/input-file.h), the JSON parse, then
// parseScenario(). A scenario that parses must also survive the rest of what rea derives from
// it before running anything: its JSON form, the committed projections and their commitments.
//
// Property: toJson(parse(x)) parses again to the same scenario (a fixed point of toJson).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "evidence/commitment.h"
#include "evidence/projection.h"
#include "evidence/scenario.h"
#include "supervisor/cli/input-file.h"

namespace {

using rea::evidence::Json;

void check(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "property failed: %s\n", what);
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (rea::supervisor::jsonNestingDepth(text) > rea::supervisor::MAX_JSON_DEPTH) return 0;
  Json input = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (input.is_discarded()) return 0;

  auto parsed = rea::evidence::parseScenario(input);
  check(parsed.scenario.has_value() == parsed.issues.empty(), "scenario set iff no issues");
  if (!parsed.scenario) {
    (void)rea::evidence::formatIssues(parsed.issues);
    return 0;
  }
  const auto& scenario = *parsed.scenario;
  Json form = rea::evidence::toJson(scenario);
  auto again = rea::evidence::parseScenario(form);
  check(again.scenario.has_value(), "toJson(scenario) parses");
  check(rea::evidence::toJson(*again.scenario) == form, "toJson is a fixed point");

  (void)rea::evidence::commitment(
      rea::evidence::fullScenarioProjection(scenario, std::string(64, 'a')));
  (void)rea::evidence::commitment(rea::evidence::comparisonContract(scenario));
  (void)rea::evidence::commitment(rea::evidence::shimPlan(scenario));
  (void)rea::evidence::commitment(rea::evidence::replayPlan(scenario));
  (void)rea::evidence::commitment(rea::evidence::normalizationJson(scenario));
  return 0;
}
