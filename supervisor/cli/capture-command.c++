// `rea capture-process [OPTIONS] FILE` (SPEC B §10.1 capture order): read file → size check →
// JSON parse → scenario parse → admission and capture (capture-scenario.h) → Evidence, where
// result-output.h sends it (JSON, or a summary in words for a terminal).
// SIGINT, SIGTERM and SIGHUP cancel a running capture: its cleanup completes and the `cancelled`
// error is printed. While the scenario is still being read they end rea as usual.
#include <cstdio>

#include <nlohmann/json.hpp>  // capture-scenario.h holds an optional Json

#include "evidence/capture-summary.h"
#include "evidence/error.h"
#include "evidence/scenario.h"
#include "supervisor/run/capture-scenario.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/input-file.h"
#include "supervisor/cli/output.h"
#include "supervisor/cli/result-output.h"

namespace rea::supervisor {

using namespace rea::evidence;

int runCaptureCommand(const std::vector<std::string>& args) {
  CommandLine line("capture-process");
  ResultOptions result;
  addResultOptions(line.app, result);
  if (auto usage = line.parse(args, 1, "expected one scenario file (or - for stdin)")) {
    return *usage;
  }
  bool pretty = result.pretty;

  // Issue 18.5: the scenario is read with the termination signals as they came: a FIFO or a
  // silent stdin may make the read wait forever, and SIGINT, SIGTERM or SIGHUP must still end
  // it (nothing exists yet that would need cleaning up).
  auto input = readJsonFile(line.files[0]);
  // From here on such a signal stays pending and cancels the capture through the event loop
  // instead of killing rea mid-cleanup.
  blockTerminationSignals();
  if (input.error) return printError(*input.error, pretty);
  auto parsed = parseScenario(*input.value);
  if (!parsed.scenario) return printError(scenarioInvalid(parsed.issues), pretty);
  const Scenario& scenario = *parsed.scenario;

  if (auto refusal = admitScenario(scenario)) return printError(*refusal, pretty);

  auto outcome = captureScenario(scenario);
  if (outcome.error) return printError(*outcome.error, pretty);
  const Json& evidence = *outcome.evidence;
  // Loud limits: a truncated capture is said on stderr, whatever stdout gets.
  for (const auto& line : limitWarnings(evidence))
    std::fprintf(stderr, "%s\n", line.c_str());
  return deliverResult(evidence, summariseCapture(evidence), result);
}

}  // namespace rea::supervisor
