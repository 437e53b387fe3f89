// `rea capture-process [--pretty] FILE` (SPEC B §10.1 capture order): read file → size check →
// JSON parse → scenario parse → admission and capture (capture-scenario.h) → Evidence on stdout.
// SIGINT, SIGTERM and SIGHUP cancel a running capture: its cleanup completes and the `cancelled`
// error is printed. While the scenario is still being read they end rea as usual.
#include "evidence/error.h"
#include "evidence/scenario.h"
#include "supervisor/capture-scenario.h"
#include "supervisor/commands.h"
#include "supervisor/input-file.h"
#include "supervisor/output.h"

namespace rea::supervisor {

using namespace rea::evidence;

int runCaptureCommand(const std::vector<std::string>& args) {
  bool pretty = false;
  std::vector<std::string> files;
  for (const auto& arg : args) {
    if (arg == "--pretty") {
      pretty = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option: " + arg, "capture-process");
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 1) return usageError("expected one scenario file", "capture-process");

  // Issue 18.5: the scenario is read with the termination signals as they came: a FIFO or a
  // silent stdin may make the read wait forever, and SIGINT, SIGTERM or SIGHUP must still end
  // it (nothing exists yet that would need cleaning up).
  auto input = readJsonFile(files[0]);
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
  return printJson(*outcome.evidence, pretty);
}

}  // namespace rea::supervisor
