#pragma once
// One capture of a parsed scenario, from admission to Evidence, for every command that captures
// (`capture-process`, and any later command that captures more than once or on behalf of another
// program). The steps after parsing (SPEC B §10.1): operator policy → policy check → features
// this machine lacks → capture → assembly → validation → Evidence.
//
// Errors: carried as values (a CommandError), never thrown; a capture that cannot start, fails
// its own validation or cannot clean up becomes the matching error object.

#include <functional>
#include <optional>

#include <kj/async-io.h>
#include <kj/async.h>
// ScenarioCapture holds the Evidence by value (std::optional needs the complete type).
#include <nlohmann/json.hpp>

#include "evidence/error.h"
#include "evidence/json.h"
#include "evidence/policy-config.h"
#include "evidence/scenario.h"
#include "supervisor/cli/capture-progress.h"

namespace rea::supervisor {

evidence::OperatorPolicyLoad loadThisProcessOperatorPolicy();
// The operator policy (REA_POLICY_* and the policy file, SPEC A6) as this process sees it: its
// environment, and its working directory for relative roots.

std::optional<evidence::CommandError> admitScenario(const evidence::Scenario& scenario);
// This process's operator policy, the scenario checked against it, and the features this
// machine cannot provide refused plainly (never faked). nullopt when the scenario may run.

struct ScenarioCapture {
  std::optional<evidence::Json> evidence;
  std::optional<evidence::CommandError> error;  // exactly one of the two is set
};

struct ScenarioCaptureOptions {
  // Resolves when the capture must stop (its cleanup still completes, and the result is the
  // `cancelled` error). Called once, on the capture's own event loop. Default: SIGINT, SIGTERM
  // or SIGHUP to this process (captured by blockTerminationSignals()).
  std::function<kj::Promise<void>(kj::AsyncIoContext& io)> cancellation;
  // The progress line on stderr, when a person watches it.
  bool showProgress = true;
  // When set, told the phase and the bytes of target output captured so far every 250 ms
  // while the capture runs, and once more when assembly starts (for progress reported
  // elsewhere: `rea mcp`). Called on the capture's thread; no progress line is drawn then.
  CaptureProgress::Report onProgress;
};

ScenarioCapture captureScenario(const evidence::Scenario& scenario,
                                const ScenarioCaptureOptions& options = {});
// Runs one capture of an admitted scenario on a fresh event loop of the calling thread.

void blockTerminationSignals();
// SIGINT, SIGTERM and SIGHUP stay pending from here on, so one arriving at any moment cancels
// a capture through its event loop instead of killing rea mid-cleanup. Call first thing.

kj::Promise<void> onTerminationSignal(kj::AsyncIoContext& io);
// Resolves on the first of SIGINT, SIGTERM or SIGHUP (after blockTerminationSignals()).

}  // namespace rea::supervisor
