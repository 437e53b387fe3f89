// `rea stability [OPTIONS] SCENARIO.json` (SPEC A15): captures the scenario N times, one after
// another, under the current operator policy, through the one capture path
// (capture-scenario.h), and reports per dimension whether the captures agree
// (evidence/stability.h). Where the result goes follows result-output.h (a summary in words on a
// terminal, the JSON when piped, -o FILE, --format). A capture that fails (or is cancelled:
// SIGINT, SIGTERM, SIGHUP) ends the command with that capture's error object.
#include <unistd.h>

#include <cstdio>

#include <nlohmann/json.hpp>  // capture-scenario.h holds an optional Json

#include "evidence/error.h"
#include "evidence/scenario.h"
#include "evidence/stability.h"
#include "supervisor/run/capture-scenario.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/input-file.h"
#include "supervisor/cli/output.h"
#include "supervisor/cli/result-output.h"

namespace rea::supervisor {

using namespace rea::evidence;

namespace {

constexpr int64_t DEFAULT_RUNS = 3;
constexpr int64_t MAX_RUNS = 20;  // every pair is compared: 190 comparisons at most

}  // namespace

int runStabilityCommand(const std::vector<std::string>& args) {
  blockTerminationSignals();  // first: a signal while reading still cancels cleanly
  CommandLine line("stability");
  ResultOptions result;
  addResultOptions(line.app, result);
  std::string runsText, toleranceText;
  auto* runsOption = line.app.add_option("-n,--runs", runsText);
  auto* tolerance = line.app.add_option("--timing-tolerance-ms", toleranceText);
  if (auto usage = line.parse(args, 1, "expected one scenario file (or - for stdin)")) {
    return *usage;
  }
  int64_t runs = DEFAULT_RUNS;
  if (runsOption->count() > 0) {
    if (auto usage = line.count("--runs", runsText, runs)) return *usage;
    if (runs < 2 || runs > MAX_RUNS) {
      return usageError("--runs needs a number of runs from 2 to 20", "stability");
    }
  }
  CompareOptions options;
  if (tolerance->count() > 0) {
    int64_t value;
    if (auto usage = line.count("--timing-tolerance-ms", toleranceText, value)) return *usage;
    options.timingToleranceMs = value;
  }
  bool pretty = result.pretty;

  auto input = readJsonFile(line.files[0]);
  if (input.error) return printError(*input.error, pretty);
  auto parsed = parseScenario(*input.value);
  if (!parsed.scenario) return printError(scenarioInvalid(parsed.issues), pretty);
  const Scenario& scenario = *parsed.scenario;
  if (auto refusal = admitScenario(scenario)) return printError(*refusal, pretty);

  std::vector<Json> captures;
  for (int64_t run = 1; run <= runs; ++run) {
    if (isatty(STDERR_FILENO)) {
      std::fprintf(stderr, "rea: stability run %lld of %lld\n", static_cast<long long>(run),
                   static_cast<long long>(runs));
    }
    auto outcome = captureScenario(scenario);
    if (outcome.error) return printError(*outcome.error, pretty);
    // Our own Evidence, validated by the capture path: its capture object is compared as is.
    captures.push_back(std::move((*outcome.evidence)["normalized_result"]));
  }

  Json stability = assessStability(captures, options);
  return deliverResult(stability, summariseStability(stability), result);
}

}  // namespace rea::supervisor
