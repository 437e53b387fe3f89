#include "supervisor/assembly/capture-assembly.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "evidence/bucket.h"
#include "evidence/chunk-normaliser.h"
#include "evidence/commitment.h"
#include "evidence/normalise.h"
#include "evidence/projection.h"
#include "evidence/timestamp.h"
#include "supervisor/assembly/assemble-filesystem.h"
#include "supervisor/assembly/assemble-limits.h"
#include "supervisor/assembly/assemble-processes.h"
#include "supervisor/assembly/assemble-protocol.h"
#include "supervisor/assembly/assemble-rendered.h"
#include "supervisor/assembly/assemble-shim.h"
#include "supervisor/assembly/redact-paths.h"

namespace rea::supervisor {
namespace {

using namespace rea::evidence;

// The limitation sentences of B §4.4; the process ones depend on the observation mode (A8) and
// come from assemble-processes.
const char FILESYSTEM_LIMITATION[] =
    "The filesystem is observed through before/after snapshots rather than syscall tracing.";
const char NETWORK_LIMITATION[] = "The harness leaves external networking unisolated.";
const char NETWORK_RESIDUAL[] = "This adapter does not isolate external networking.";
// Issue 18: the private namespace isolates IP sockets and abstract Unix sockets; a Unix socket
// bound to a path is reached through the filesystem, which network_access does not govern.
const char LOOPBACK_SOCKETS_LIMITATION[] =
    "Loopback isolation covers IP sockets only: Unix sockets bound to filesystem paths stay "
    "reachable as far as filesystem permissions allow.";

class Clock {
 public:
  Clock(uint64_t t0MonoNs, int64_t bucket) : bucket(bucket), t0(t0MonoNs) {}
  int64_t rawMs(uint64_t atNs) const {
    return atNs <= t0 ? 0 : static_cast<int64_t>((atNs - t0) / 1000000);
  }
  int64_t bucketed(uint64_t atNs) const { return bucketMs(rawMs(atNs), bucket); }
  int64_t bucket;

 private:
  uint64_t t0;
};

NormaliseContext baseContext(const Scenario& scenario) {
  NormaliseContext context;
  for (const auto& alias : scenario.secretAliases) {
    for (const auto& entry : scenario.environment) {
      if (entry.name == alias) context.secrets.push_back(entry.value);
    }
  }
  for (const auto& event : scenario.events) {
    if (auto* input = std::get_if<InputAction>(&event.action)) {
      if (input->sensitive) context.sensitiveInputs.push_back(input->data);
    }
  }
  context.workingDirectory = scenario.workingDirectory;
  context.executable = scenario.executable;
  context.filesystemRoots = scenario.filesystemRoots;
  context.normalisePaths = scenario.normalization.paths;
  context.normalisePids = scenario.normalization.pids;
  context.normalisePorts = scenario.normalization.ports;
  for (const auto& p : scenario.normalization.patterns) {
    context.patterns.push_back({p.pattern, p.replacement});
  }
  return context;
}

std::vector<TerminalFrame> assembleFrames(PtyRecord& pty, const Clock& clock,
                                          ChunkNormaliser& normaliser) {
  // One frame per accepted chunk. The normaliser may hold back the end of a chunk that could
  // begin a secret (A3); it is released with the next chunk, or appended to the last frame.
  // Each raw chunk's text is released once normalised: the output is never held twice.
  std::vector<TerminalFrame> frames;
  frames.reserve(pty.output.size());
  for (auto& chunk : pty.output) {
    TerminalFrame frame;
    frame.sequence = static_cast<int64_t>(frames.size());
    frame.atMs = clock.bucketed(chunk.atNs);
    frame.data = normaliser.push(chunk.data);
    std::string().swap(chunk.data);
    frames.push_back(std::move(frame));
  }
  std::string rest = normaliser.flush();
  if (!rest.empty() && !frames.empty()) frames.back().data += rest;
  return frames;
}

std::string interactionData(const Event& event, bool dispatched, const Normaliser& inputText) {
  return std::visit(
      [&](const auto& action) -> std::string {
        using T = std::decay_t<decltype(action)>;
        if constexpr (std::is_same_v<T, InputAction>) {
          if (!dispatched) return "<not-dispatched>";
          if (action.sensitive) return redactedInputPlaceholder(action.data);
          return inputText(action.data);
        } else if constexpr (std::is_same_v<T, ResizeAction>) {
          return std::to_string(action.columns) + "x" + std::to_string(action.rows);
        } else {
          return signalName(action.signal);
        }
      },
      event.action);
}

InteractionType interactionType(const Event& event) {
  switch (event.action.index()) {
    case 0:
      return InteractionType::INPUT;
    case 1:
      return InteractionType::RESIZE;
    default:
      return InteractionType::SIGNAL;
  }
}

std::vector<InteractionEvent> assembleInteractions(
    const Scenario& scenario, const PtyRecord& pty, const Clock& clock,
    const NormaliseContext& base, const std::vector<InteractionWaitRecord>& waits) {
  // B §4.7: dispatch order, then the events never dispatched in scenario order.
  NormaliseContext inputContext = base;  // input data: temp-root placeholder, no pids (B §4.6.1)
  inputContext.temporaryRoot = std::string(NO_TEMPORARY_ROOT);
  inputContext.pids.clear();
  Normaliser inputText(inputContext);

  std::vector<const PtyDispatch*> fired, abandoned;
  std::vector<bool> seen(scenario.events.size(), false);
  for (const auto& dispatch : pty.interactions) {
    if (dispatch.eventIndex >= scenario.events.size() || seen[dispatch.eventIndex]) continue;
    seen[dispatch.eventIndex] = true;
    (dispatch.outcome == PtyDispatch::Outcome::TARGET_EXITED ? abandoned : fired)
        .push_back(&dispatch);
  }
  std::stable_sort(abandoned.begin(), abandoned.end(),
                   [](auto* a, auto* b) { return a->eventIndex < b->eventIndex; });

  std::vector<InteractionEvent> events;
  auto add = [&](uint32_t index, int64_t atMs, InteractionOutcome outcome) {
    const Event& event = scenario.events[index];
    InteractionEvent record;
    record.sequence = static_cast<int64_t>(events.size());
    record.scheduledAtMs = event.atMs;
    record.dispatchedAtMs = atMs;
    record.type = interactionType(event);
    bool performed =
        outcome != InteractionOutcome::TARGET_EXITED && outcome != InteractionOutcome::TIMED_OUT;
    record.data = interactionData(event, performed, inputText);
    record.outcome = outcome;
    if (event.when) {
      // The trigger is content (compared); when it held is timing (masked, A7).
      record.when = JsonBox(toJson(*event.when));
      if (index < waits.size() && waits[index].heldAtNs) {
        record.heldAtMs = clock.bucketed(*waits[index].heldAtNs);
      }
    }
    events.push_back(std::move(record));
  };
  // Answered terminal queries are dispatched inputs too: merged into dispatch order by time.
  auto reply = pty.autoReplies.begin();
  auto addRepliesUntil = [&](std::optional<uint64_t> atNs) {
    for (; reply != pty.autoReplies.end() && (!atNs || reply->atNs < *atNs); ++reply) {
      events.push_back(autoReplyEvent(*reply, clock.bucketed(reply->atNs), inputText));
      events.back().sequence = static_cast<int64_t>(events.size() - 1);
    }
  };
  for (const auto* d : fired) {
    addRepliesUntil(d->atNs);
    add(d->eventIndex, clock.bucketed(d->atNs),
        d->outcome == PtyDispatch::Outcome::FAILED      ? InteractionOutcome::FAILED
        : d->outcome == PtyDispatch::Outcome::TIMED_OUT ? InteractionOutcome::TIMED_OUT
                                                        : InteractionOutcome::DISPATCHED);
  }
  addRepliesUntil(std::nullopt);
  for (const auto* d : abandoned) {
    add(d->eventIndex, clock.bucketed(d->atNs), InteractionOutcome::TARGET_EXITED);
  }
  // Events the helper never reported (it was lost): not dispatched, at the time we know last.
  int64_t lastMs = pty.exit ? clock.bucketed(pty.exit->atNs) : 0;
  for (uint32_t i = 0; i < scenario.events.size(); ++i) {
    if (!seen[i]) add(i, lastMs, InteractionOutcome::TARGET_EXITED);
  }
  return events;
}

evidence::Exit assembleExit(const PtyRecord& pty) {
  // A4: the exit record tells the truth.
  evidence::Exit exit;
  if (!pty.exit) return exit;  // never observed (lost helper): {null, null, exited} + residual
  switch (pty.exit->reason) {
    case PtyExit::Reason::EXITED:
      exit.reason = ExitReason::EXITED;
      if (pty.exit->code) exit.code = *pty.exit->code;
      if (pty.exit->signal) exit.signal = *pty.exit->signal;
      break;
    case PtyExit::Reason::TIMEOUT:
    case PtyExit::Reason::IDLE_TIMEOUT:
      exit.reason = pty.exit->reason == PtyExit::Reason::TIMEOUT ? ExitReason::TIMEOUT
                                                                 : ExitReason::IDLE_TIMEOUT;
      exit.signal = 9;
      break;
  }
  return exit;
}

Manifest assembleManifest(const Scenario& scenario, const AssemblyInputs& inputs) {
  Manifest manifest;
  manifest.reaVersion = REA_VERSION;
  manifest.providerVersion = "3";
  manifest.platform = "linux";
#if defined(__x86_64__)
  manifest.architecture = "x64";
#elif defined(__aarch64__)
  manifest.architecture = "arm64";
#else
  manifest.architecture = "unknown";
#endif
  manifest.ptyBackend = "rea-pty";
  manifest.startedAt = formatIsoTimestamp(inputs.run.t0RealMs);
  manifest.completedAt =
      formatIsoTimestamp(std::max(inputs.completedAtRealMs, inputs.run.t0RealMs));
  manifest.scenario = fullScenarioProjection(scenario, inputs.executableSha256);
  manifest.comparisonContract = comparisonContract(scenario);
  manifest.shimPlan = shimPlan(scenario);
  manifest.replayPlan = replayPlan(scenario);
  manifest.fullScenarioSha256 = commitment(*manifest.scenario);
  manifest.comparisonContractSha256 = commitment(*manifest.comparisonContract);
  manifest.executableSha256 = inputs.executableSha256;
  manifest.normalizationSha256 = commitment(normalizationJson(scenario));
  manifest.shimPlanSha256 = commitment(*manifest.shimPlan);
  manifest.replayPlanSha256 = commitment(*manifest.replayPlan);
  return manifest;
}

}  // namespace

evidence::NormaliseContext scenarioNormaliseContext(const evidence::Scenario& scenario) {
  return baseContext(scenario);
}

Capture assembleCapture(const AssemblyInputs& inputs) {
  const Scenario& scenario = inputs.scenario;
  CaptureRunResult& run = inputs.run;
  Clock clock(run.t0MonoNs, scenario.normalization.timeBucketMs);

  NormaliseContext base = baseContext(scenario);
  if (run.replay && run.replay->port) base.harnessPorts.push_back(*run.replay->port);  // A5
  NormaliseContext terminalContext = base;
  terminalContext.temporaryRoot = run.tempRoot;
  if (run.pty.spawn) terminalContext.pids = {run.pty.spawn->rootPid};
  if (run.shims) terminalContext.harnessPorts.push_back(run.shims->port);  // A5
  ChunkNormaliser terminalText(terminalContext);

  Capture capture;
  capture.manifest = assembleManifest(scenario, inputs);
  capture.normalization = normalizationJson(scenario);
  // Counted before the raw output is consumed below.
  std::vector<std::string> limitSentences = outputLimitSentences(scenario, run.pty);
  // Rendered frames first: their redaction still reads the raw output, which assembleFrames
  // then consumes. Each raw part is released as soon as its normalised form exists.
  RenderedAssembly rendered = assembleRenderedFrames(
      run.pty, [&clock](uint64_t atNs) { return clock.bucketed(atNs); }, terminalContext,
      static_cast<uint64_t>(scenario.limits.frames),
      static_cast<uint64_t>(scenario.limits.outputBytes));
  std::vector<PtyRenderedFrame>().swap(run.pty.rendered);
  capture.renderedFrames = std::move(rendered.frames);
  capture.frames = assembleFrames(run.pty, clock, terminalText);
  capture.interactionEvents =
      assembleInteractions(scenario, run.pty, clock, base, run.interactionWaits);
  capture.exit = assembleExit(run.pty);
  capture.settlement = assembleSettlement(run, clock.bucket);
  ProcessAssembly processes = assembleProcesses(run, base, clock.bucket);
  capture.processSamples = std::move(processes.samples);
  capture.manifest.processObservation = processes.observation;
  capture.manifest.execObservation = processes.execObservation;
  if (run.shims) {
    // B §7.3: arguments and directory normalised with N(·, TMP, root pid), like the terminal.
    capture.shimEvents = assembleShimEvents(
        *run.shims, [&clock](uint64_t atNs) { return clock.bucketed(atNs); }, terminalContext);
  }

  // Checkpoints and snapshots (B §6.9, §6.10): assemble-filesystem.c++.
  int64_t completedMs = std::max<int64_t>(0, inputs.completedAtRealMs - run.t0RealMs);
  auto filesystem = assembleFilesystem(run.filesystem, run.t0MonoNs, clock.bucket,
                                       bucketMs(completedMs, clock.bucket));
  capture.filesystemCheckpoints = std::move(filesystem.checkpoints);
  capture.filesBefore = std::move(filesystem.filesBefore);
  capture.filesAfter = std::move(filesystem.filesAfter);
  capture.filesystemEffects = std::move(filesystem.effects);
  // A3 (issue 18.3): names found on disk or in requests are recorded as found, secrets aside.
  Normaliser redact(secretsOnly(base));
  redactCheckpoints(capture.filesystemCheckpoints, redact);
  redactFileStates(capture.filesBefore, redact);
  redactFileStates(capture.filesAfter, redact);
  redactFileEffects(capture.filesystemEffects, redact);

  capture.truncated = run.pty.outputTruncated || run.pty.renderTruncated || rendered.truncated ||
                      processes.partial || filesystem.truncated || !run.lostHelpers.empty() ||
                      (run.shims && run.shims->truncated);
  capture.limitations = processes.leadingLimitations;
  capture.limitations.push_back(FILESYSTEM_LIMITATION);
  if (filesystem.truncated) limitSentences.push_back(filesystemLimitSentence(scenario));
  if (run.sampler.pidsLimitHits > 0 && run.sampler.prepared) {
    limitSentences.push_back(
        pidsLimitSentence(run.sampler.prepared->maxPids, run.sampler.pidsLimitHits));
  }
  for (auto& sentence : limitSentences)
    capture.limitations.push_back(std::move(sentence));
  capture.residualUnknowns = processes.residualUnknowns;
  if (run.replay) {
    auto protocol = assembleProtocol(*run.replay, base, clock.bucket);
    capture.protocolEvents = std::move(protocol.events);
    redactProtocolEvents(capture.protocolEvents, redact);
    capture.truncated = capture.truncated || protocol.truncated;
    for (auto& sentence : protocol.limitations)
      capture.limitations.push_back(std::move(sentence));
    for (auto& residual : protocol.residualUnknowns)
      capture.residualUnknowns.push_back(std::move(residual));
  }
  // A9: a "loopback" capture ran in a private namespace with only lo (capture-run refuses to
  // start otherwise), so the network sentence and residual apply to "host" only.
  if (scenario.networkAccess == evidence::NetworkAccess::HOST) {
    capture.limitations.push_back(NETWORK_LIMITATION);
    capture.residualUnknowns.push_back({ResidualScope::NETWORK, NETWORK_RESIDUAL});
  } else {
    capture.limitations.push_back(LOOPBACK_SOCKETS_LIMITATION);
  }
  for (const auto& lost : run.lostHelpers) {
    // `lost.reason` already names the helper ("the pty helper crashed with signal 11 ...").
    std::string reason =
        "Lost helper: " + lost.reason + "; its observations after that moment are missing.";
    capture.limitations.push_back(reason);
    if (lost.helper == "fswatch") {
      capture.residualUnknowns.push_back({ResidualScope::FILESYSTEM, reason});
      continue;
    }
    if (lost.helper == "shim") {
      capture.residualUnknowns.push_back({ResidualScope::SHIM, reason});
      continue;
    }
    if (lost.helper == "replay") {
      capture.residualUnknowns.push_back({ResidualScope::PROTOCOL, reason});
      continue;
    }
    if (lost.helper == "sampler") {
      capture.residualUnknowns.push_back({ResidualScope::PROCESS, reason});
      continue;
    }
    capture.residualUnknowns.push_back({ResidualScope::TERMINAL, reason});
    capture.residualUnknowns.push_back({ResidualScope::INTERACTION, reason});
    if (!run.pty.exit) capture.residualUnknowns.push_back({ResidualScope::EXIT, reason});
  }
  for (auto& sentence : processes.trailingLimitations)
    capture.limitations.push_back(std::move(sentence));
  return capture;
}

}  // namespace rea::supervisor
