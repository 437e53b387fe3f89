// `rea stability [--format text|json] [--pretty] [-n N] SCENARIO.json` (SPEC A15): captures the
// scenario N times, one after another, under the current operator policy, through the one
// capture path (capture-scenario.h), and reports per dimension whether the captures agree
// (evidence/stability.h). A text summary when stdout is a terminal (or with --format text), the
// JSON result otherwise. A capture that fails (or is cancelled: SIGINT, SIGTERM, SIGHUP) ends the
// command with that capture's error object.
#include <unistd.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "evidence/error.h"
#include "evidence/scenario.h"
#include "evidence/stability.h"
#include "supervisor/capture-scenario.h"
#include "supervisor/commands.h"
#include "supervisor/input-file.h"
#include "supervisor/output.h"

namespace rea::supervisor {

using namespace rea::evidence;

namespace {

constexpr int64_t DEFAULT_RUNS = 3;
constexpr int64_t MAX_RUNS = 20;  // every pair is compared: 190 comparisons at most

}  // namespace

int runStabilityCommand(const std::vector<std::string>& args) {
  blockTerminationSignals();  // first: a signal while reading still cancels cleanly
  bool pretty = false;
  std::string format = isatty(STDOUT_FILENO) ? "text" : "json";
  int64_t runs = DEFAULT_RUNS;
  CompareOptions options;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--pretty") {
      pretty = true;
    } else if (arg == "--format") {
      if (i + 1 >= args.size() || (args[i + 1] != "text" && args[i + 1] != "json")) {
        return usageError("--format needs text or json", "stability");
      }
      format = args[++i];
    } else if (arg == "--timing-tolerance-ms") {
      int64_t value;
      if (i + 1 >= args.size() || !parseCount(args[++i], value)) {
        return usageError(arg + " needs a non-negative integer", "stability");
      }
      options.timingToleranceMs = value;
    } else if (arg == "-n" || arg == "--runs") {
      if (i + 1 >= args.size() || !parseCount(args[i + 1], runs) || runs < 2 || runs > MAX_RUNS) {
        return usageError(arg + " needs a number of runs from 2 to 20", "stability");
      }
      ++i;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option: " + arg, "stability");
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 1) return usageError("expected one scenario file", "stability");

  auto input = readJsonFile(files[0]);
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
  if (format == "text") return printText(summariseStability(stability));
  return printJson(stability, pretty);
}

}  // namespace rea::supervisor
