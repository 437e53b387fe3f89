// One capture of a parsed scenario (capture-scenario.h): admission against the operator policy,
// the capture on its own event loop, assembly, validation and Evidence.
#include "supervisor/run/capture-scenario.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include <kj/async-unix.h>
#include <kj/debug.h>

#include "evidence/evidence-record.h"
#include "evidence/permission-ceiling.h"
#include "evidence/policy-check.h"
#include "evidence/policy-config.h"
#include "evidence/projection.h"
#include "evidence/validate.h"
#include "supervisor/assembly/capture-assembly.h"
#include "supervisor/run/capture-run.h"
#include "supervisor/run/checked-paths.h"
#include "supervisor/run/file-hash.h"

namespace rea::supervisor {
namespace {

using namespace rea::evidence;

std::optional<std::string> harnessGetenv(const char* name) {
  const char* value = getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::string currentDirectory() {
  char buffer[PATH_MAX];
  return getcwd(buffer, sizeof(buffer)) != nullptr ? buffer : "/";
}

PolicyRequest policyRequestFor(const Scenario& scenario) {
  PolicyRequest request;
  request.executable = scenario.executable;
  request.workingDirectory = scenario.workingDirectory;
  request.filesystemRoots = scenario.filesystemRoots;
  for (const auto& entry : scenario.environment)
    request.environmentNames.push_back(entry.name);
  for (const auto& name : scenario.inheritEnvironment)
    request.environmentNames.push_back(name);
  request.networkAccess = scenario.networkAccess;
  return request;
}

// Features this machine cannot provide: refused plainly before launch, never faked.
std::optional<std::string> unsupportedFeature(const Scenario& scenario) {
  // A9: refused before launch when no private network namespace can be made here.
  if (scenario.networkAccess == NetworkAccess::LOOPBACK) return loopbackNetnsUnavailable();
  return std::nullopt;
}

CaptureRunRequest runRequestFor(const Scenario& scenario) {
  CaptureRunRequest request;
  request.executable = scenario.executable;
  request.arguments = scenario.arguments;
  request.workingDirectory = scenario.workingDirectory;
  for (const auto& entry : scenario.environment) {
    request.environment.emplace_back(entry.name, entry.value);
  }
  request.inheritEnvironment = scenario.inheritEnvironment;
  request.columns = static_cast<uint16_t>(scenario.terminal.columns);
  request.rows = static_cast<uint16_t>(scenario.terminal.rows);
  for (const auto& event : scenario.events) {
    PtyInteraction interaction;
    interaction.atMs = static_cast<uint64_t>(event.atMs);
    if (auto* input = std::get_if<InputAction>(&event.action)) {
      interaction.type = PtyInteraction::Type::INPUT;
      interaction.data = input->data;
    } else if (auto* resize = std::get_if<ResizeAction>(&event.action)) {
      interaction.type = PtyInteraction::Type::RESIZE;
      interaction.columns = static_cast<uint16_t>(resize->columns);
      interaction.rows = static_cast<uint16_t>(resize->rows);
    } else {
      interaction.type = PtyInteraction::Type::SIGNAL;
      interaction.signal = signalNumber(std::get<SignalAction>(event.action).signal);
    }
    interaction.waits = event.when.has_value();
    interaction.waitsForExit =
        event.when && std::holds_alternative<RootExitCondition>(event.when->kind);
    request.events.push_back(std::move(interaction));
  }
  request.interactions.events = scenario.events;
  request.timeoutMs = static_cast<uint64_t>(scenario.timeoutMs);
  request.idleTimeoutMs = static_cast<uint64_t>(scenario.idleTimeoutMs);
  request.settleMs = scenario.settleMs;
  request.maxFrames = static_cast<uint32_t>(scenario.limits.frames);
  request.maxOutputBytes = static_cast<uint64_t>(scenario.limits.outputBytes);
  request.filesystem.roots = scenario.filesystemRoots;
  request.filesystem.limits.files = static_cast<uint64_t>(scenario.limits.files);
  request.filesystem.limits.fileBytes = static_cast<uint64_t>(scenario.limits.fileBytes);
  request.filesystem.limits.depth = static_cast<uint64_t>(scenario.limits.filesystemDepth);
  request.filesystem.checkpoints = scenario.checkpoints;
  // A snapshot may take as long as the whole run may (at least 5 s): a stalled fswatch helper is
  // then declared lost instead of holding rea for minutes.
  request.filesystem.snapshotDeadlineMs =
      std::max<uint64_t>(5000, static_cast<uint64_t>(scenario.timeoutMs));
  request.filesystem.terminalContext = scenarioNormaliseContext(scenario);
  request.interactions.terminalContext = request.filesystem.terminalContext;
  request.commandShims = scenario.commandShims;
  request.protocolEvents = static_cast<uint32_t>(scenario.limits.protocolEvents);
  // The replay helper runs when there is a plan to serve or a loopback namespace to make.
  const auto& replay = scenario.replay;
  bool loopback = scenario.networkAccess == NetworkAccess::LOOPBACK;
  if (loopback || !replay.http.empty() || !replay.websocketMessages.empty() ||
      !replay.websocketConnections.empty()) {
    ReplayLaunch launch;
    launch.plan = replay;
    launch.protocolEvents = static_cast<uint32_t>(scenario.limits.protocolEvents);
    launch.protocolBodyBytes = static_cast<uint64_t>(scenario.limits.protocolBodyBytes);
    launch.connections = static_cast<uint32_t>(scenario.limits.connections);
    launch.loopbackNetns = loopback;
    request.replay = std::move(launch);
  }
  request.scrollback = static_cast<uint32_t>(scenario.terminal.scrollback);  // B §6.11
  request.maxProcesses = static_cast<uint32_t>(scenario.limits.processes);
  // Hidden switch for tests and comparisons (helpers/sampler/README.md): the baseline's sampling
  // even where exact observation is possible.
  const char* forceSampled = getenv("REA_FORCE_SAMPLED");
  request.forceSampled = forceSampled != nullptr && std::string(forceSampled) == "1";
  // Likewise (helpers/sampler/README.md): exec command lines from /proc after the exec event,
  // even where the kernel would let the sampler see each exec before it happens.
  const char* execObservation = getenv("REA_EXEC_OBSERVATION");
  request.execNotify = execObservation == nullptr || std::string(execObservation) != "procfs";
  return request;
}

}  // namespace

OperatorPolicyLoad loadThisProcessOperatorPolicy() {
  return loadOperatorPolicy(harnessGetenv, currentDirectory());
}

std::optional<CommandError> admitScenario(const Scenario& scenario) {
  auto policy = loadThisProcessOperatorPolicy();
  if (!policy.policy) return policy.error();
  PolicyRequest request = policyRequestFor(scenario);
  // Gate 1 (the ceiling) decides first, as B §2.2 orders it: its code and details are what a
  // script acts on. When gate 2 refuses too, its reason-specific words (which variable to
  // extend) replace gate 1's generic message, for the person reading it.
  auto denial = checkPolicy(*policy.policy, request);
  if (auto ceiling = checkPermissionCeiling(*policy.policy, request)) {
    if (denial && ceiling->code == "permission_required" && denial->code == ceiling->code) {
      ceiling->message = denial->message;
    }
    return *ceiling;
  }
  if (denial) return *denial;
  if (auto missing = unsupportedFeature(scenario)) return processCaptureFailed(*missing);
  return std::nullopt;
}

void blockTerminationSignals() {
  kj::UnixEventPort::captureSignal(SIGINT);
  kj::UnixEventPort::captureSignal(SIGTERM);
  kj::UnixEventPort::captureSignal(SIGHUP);
}

kj::Promise<void> onTerminationSignal(kj::AsyncIoContext& io) {
  return io.unixEventPort.onSignal(SIGINT)
      .exclusiveJoin(io.unixEventPort.onSignal(SIGTERM))
      .exclusiveJoin(io.unixEventPort.onSignal(SIGHUP))
      .ignoreResult();
}

ScenarioCapture captureScenario(const Scenario& scenario, const ScenarioCaptureOptions& options) {
  ScenarioCapture outcome;
  // Issue 18.2: from here on the executable and the working directory are used only as the
  // objects opened and checked now (checked-paths.h), never again by path.
  auto policy = loadThisProcessOperatorPolicy();
  if (!policy.policy) {
    outcome.error = policy.error();
    return outcome;
  }
  auto checked = openCheckedPaths(*policy.policy, scenario.executable, scenario.workingDirectory);
  if (checked.error) {
    outcome.error = std::move(checked.error);
    return outcome;
  }
  CaptureRunRequest runRequest = runRequestFor(scenario);
  runRequest.maxPids = policy.policy->maxPids;
  runRequest.executableObject = checked.paths->executableObject();
  runRequest.workingDirectory = checked.paths->workingDirectoryObject();
  auto io = kj::setupAsyncIo();
  bool interrupted = false;
  auto cancellation = (options.cancellation ? options.cancellation(io) : onTerminationSignal(io))
                          .then([&interrupted]() -> kj::Maybe<CaptureRunResult> {
                            interrupted = true;
                            return nullptr;
                          });
  // The progress line (only when a person watches stderr); erased before anything else is
  // written there.
  kj::Maybe<kj::Own<CaptureProgress>> progress;
  if (options.onProgress) {
    progress = kj::heap<CaptureProgress>(io.provider->getTimer(), options.onProgress);
  } else if (options.showProgress && CaptureProgress::enabledFor(STDERR_FILENO)) {
    auto line = kj::heap<CaptureProgress>(io.provider->getTimer(), STDERR_FILENO);
    line->outputLimit(static_cast<uint64_t>(scenario.limits.outputBytes));
    progress = kj::mv(line);
  }
  kj::Maybe<CaptureProgress&> progressRef;
  KJ_IF_MAYBE (p, progress) {
    progressRef = **p;
  }
  auto run = runCapture(io, std::move(runRequest), progressRef)
                 .then([](CaptureRunResult result) -> kj::Maybe<CaptureRunResult> {
                   return kj::mv(result);
                 })
                 .exclusiveJoin(kj::mv(cancellation));

  kj::Maybe<CaptureRunResult> result;
  auto exception = kj::runCatchingExceptions([&]() { result = run.wait(io.waitScope); });
  KJ_IF_MAYBE (p, progress) {
    // Erased when this function returns (before the caller prints anything).
    if (exception == nullptr && !interrupted) {
      (*p)->phase(CapturePhase::ASSEMBLING);
      // The helper drops whole chunks over the limit, so the byte count alone may never reach
      // it: the end of the stream says whether output was dropped.
      KJ_IF_MAYBE (r, result) {
        if (r->pty.outputTruncated) (*p)->outputLimitReached();
      }
      (*p)->redrawNow();
    } else {
      (*p)->finish();
    }
  }
  KJ_IF_MAYBE (e, exception) {
    // The reason goes to stderr only when asked (REA_DEBUG=1): it may name paths of this machine.
    if (getenv("REA_DEBUG") != nullptr) {
      fprintf(stderr, "rea: start failed: %s\n", e->getDescription().cStr());
    }
    outcome.error = processCaptureFailed("The target could not be started.");
    return outcome;
  }
  if (interrupted) {
    outcome.error = cancelled();
    return outcome;
  }
  auto& runResult = KJ_ASSERT_NONNULL(result);
  // The helpers exit meanwhile; dropping this reaps them (after the assembly below).
  kj::Own<CaptureHelpers> helpers = kj::mv(runResult.helpers);
  if (runResult.filesystem.failure) {
    // B §6.9/§6.10: an unreadable entry fails the capture (after its cleanup ran).
    outcome.error = processCaptureFailed(*runResult.filesystem.failure);
    return outcome;
  }
  if (runResult.cleanupFailure) {
    outcome.error = cleanupIncomplete(*runResult.cleanupFailure);
    return outcome;
  }
  auto executableHash = hashFile(checked.paths->executableHere());
  if (!executableHash) {
    outcome.error = processCaptureFailed("The executable could not be read to hash it.");
    return outcome;
  }
  Capture capture = assembleCapture({scenario, runResult, *executableHash, wallClockMs()});
  result = nullptr;  // the raw observations are in `capture` now: not held twice from here on
  malloc_trim(0);    // and their pages go back to the system, not only to malloc's free lists
  auto issues = validateCapture(capture);
  if (!issues.empty()) {
    outcome.error = processCaptureFailed("The capture failed its own validation: " +
                                         formatIssues({issues.front()}));
    return outcome;
  }
  auto environment = processEnvironment(capture.manifest.platform, capture.manifest.architecture);
  outcome.evidence = buildCaptureEvidence(std::move(capture), environment);
  helpers = nullptr;
  malloc_trim(0);
  return outcome;
}

}  // namespace rea::supervisor
