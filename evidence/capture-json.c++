// toJson for the capture model (declared in evidence/capture.h). Member order is the order of
// SPEC B §4.2, §4.3 and §5.1; REA prints captures in this order, and so do we, although no
// consumer depends on it (commitments and ids use canonical JSON).

#include "evidence/capture.h"

#include <utility>

#include <nlohmann/json.hpp>

namespace rea::evidence {
namespace {

template <typename T>
Json nullable(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

template <typename T, typename F>
Json arrayOf(const std::vector<T>& items, F&& convert) {
  Json out = Json::array();
  for (const auto& item : items)
    out.push_back(convert(item));
  return out;
}

Json frameJson(const TerminalFrame& frame) {
  return Json{{"sequence", frame.sequence}, {"at_ms", frame.atMs}, {"data", frame.data}};
}

Json renderedJson(const RenderedFrame& frame) {
  return Json{{"sequence", frame.sequence},
              {"at_ms", frame.atMs},
              {"columns", frame.columns},
              {"rows", frame.rows},
              {"cursor_x", frame.cursorX},
              {"cursor_y", frame.cursorY},
              {"active_buffer", toString(frame.activeBuffer)},
              {"lines", frame.lines},
              {"serialized_state", frame.serializedState}};
}

Json interactionJson(const InteractionEvent& event) {
  Json out{{"sequence", event.sequence},
           {"scheduled_at_ms", event.scheduledAtMs},
           {"dispatched_at_ms", event.dispatchedAtMs},
           {"type", toString(event.type)},
           {"data", event.data},
           {"outcome", toString(event.outcome)}};
  if (event.automatic) out["automatic"] = *event.automatic;
  // Reactive events only, so a time-only event keeps its B §4.7 form.
  if (event.when) out["when"] = **event.when;
  if (event.heldAtMs) out["held_at_ms"] = *event.heldAtMs;
  return out;
}

Json sampleJson(const ProcessSample& sample) {
  return Json{{"at_ms", sample.atMs},
              {"pid", sample.pid},
              {"parent_pid", sample.parentPid},
              {"command", sample.command},
              {"process_group_id", nullable(sample.processGroupId)},
              {"session_id", nullable(sample.sessionId)}};
}

Json effectJson(const FileEffect& effect) {
  return Json{{"path", effect.path},
              {"status", toString(effect.status)},
              {"before", effect.before ? toJson(*effect.before) : Json(nullptr)},
              {"after", effect.after ? toJson(*effect.after) : Json(nullptr)}};
}

Json shimJson(const ShimEvent& event) {
  return Json{{"sequence", event.sequence},        {"at_ms", event.atMs},
              {"command", event.command},          {"route_index", nullable(event.routeIndex)},
              {"arguments", event.arguments},      {"working_directory", event.workingDirectory},
              {"outcome", toString(event.outcome)}};
}

Json protocolJson(const ProtocolEvent& event) {
  return Json{{"sequence", event.sequence},
              {"at_ms", event.atMs},
              {"protocol", toString(event.protocol)},
              {"direction", toString(event.direction)},
              {"method", nullable(event.method)},
              {"path", nullable(event.path)},
              {"data", event.data},
              {"outcome", toString(event.outcome)}};
}

Json manifestJson(const Manifest& manifest) {
  Json out{{"rea_version", manifest.reaVersion},
           {"provider_version", manifest.providerVersion},
           {"platform", manifest.platform},
           {"architecture", manifest.architecture},
           {"pty_backend", manifest.ptyBackend},
           {"started_at", manifest.startedAt},
           {"completed_at", manifest.completedAt},
           {"scenario", *manifest.scenario},
           {"comparison_contract", *manifest.comparisonContract},
           {"shim_plan", *manifest.shimPlan},
           {"replay_plan", *manifest.replayPlan},
           {"full_scenario_sha256", manifest.fullScenarioSha256},
           {"comparison_contract_sha256", manifest.comparisonContractSha256},
           {"executable_sha256", manifest.executableSha256},
           {"normalization_sha256", manifest.normalizationSha256},
           {"shim_plan_sha256", manifest.shimPlanSha256},
           {"replay_plan_sha256", manifest.replayPlanSha256}};
  if (manifest.processObservation) {
    out["process_observation"] = toString(*manifest.processObservation);
  }
  if (manifest.execObservation) out["exec_observation"] = toString(*manifest.execObservation);
  return out;
}

}  // namespace

Json toJson(const FileState& state) {
  return Json{{"path", state.path},
              {"type", toString(state.type)},
              {"mode", state.mode},
              {"size", state.size},
              {"sha256", nullable(state.sha256)},
              {"symlink_target", nullable(state.symlinkTarget)}};
}

Json toJson(const Checkpoint& checkpoint) {
  return Json{{"name", checkpoint.name},
              {"at_ms", checkpoint.atMs},
              {"files", arrayOf(checkpoint.files, [](auto& s) { return toJson(s); })},
              {"effects", arrayOf(checkpoint.effects, effectJson)},
              {"truncated", checkpoint.truncated}};
}

Json toJson(Capture&& capture) {
  // The frames are most of a capture: their text moves into the JSON value, frame by frame, so
  // it is never held twice (a 10 MB capture would otherwise need 20 MB here).
  std::vector<TerminalFrame> frames = std::move(capture.frames);
  std::vector<RenderedFrame> rendered = std::move(capture.renderedFrames);
  capture.frames.clear();
  capture.renderedFrames.clear();
  Json out = toJson(static_cast<const Capture&>(capture));
  Json& framesJson = out["frames"];  // an existing member keeps its place
  for (auto& frame : frames) {
    std::string data = std::exchange(frame.data, std::string());
    Json item = frameJson(frame);
    item["data"] = std::move(data);
    framesJson.push_back(std::move(item));
  }
  std::vector<TerminalFrame>().swap(frames);
  Json& renderedJsonList = out["rendered_frames"];
  for (auto& frame : rendered) {
    std::vector<std::string> lines = std::exchange(frame.lines, std::vector<std::string>());
    std::string state = std::exchange(frame.serializedState, std::string());
    Json item = renderedJson(frame);
    Json& linesJson = item["lines"];
    for (auto& line : lines)
      linesJson.push_back(std::move(line));
    item["serialized_state"] = std::move(state);
    renderedJsonList.push_back(std::move(item));
  }
  return out;
}

Json toJson(const Capture& capture) {
  auto fileStates = [](const std::vector<FileState>& states) {
    return arrayOf(states, [](auto& s) { return toJson(s); });
  };
  Json out = Json::object();
  out["schema_version"] = CAPTURE_SCHEMA_VERSION;
  out["manifest"] = manifestJson(capture.manifest);
  out["normalization"] = *capture.normalization;
  out["frames"] = arrayOf(capture.frames, frameJson);
  out["rendered_frames"] = arrayOf(capture.renderedFrames, renderedJson);
  out["interaction_events"] = arrayOf(capture.interactionEvents, interactionJson);
  out["exit"] = Json{{"code", nullable(capture.exit.code)},
                     {"signal", nullable(capture.exit.signal)},
                     {"reason", toString(capture.exit.reason)}};
  out["settlement"] = Json{{"state", toString(capture.settlement.state)},
                           {"elapsed_ms", capture.settlement.elapsedMs},
                           {"cleanup_outcome", toString(capture.settlement.cleanupOutcome)}};
  out["process_samples"] = arrayOf(capture.processSamples, sampleJson);
  out["filesystem_checkpoints"] =
      arrayOf(capture.filesystemCheckpoints, [](auto& c) { return toJson(c); });
  out["shim_events"] = arrayOf(capture.shimEvents, shimJson);
  out["protocol_events"] = arrayOf(capture.protocolEvents, protocolJson);
  out["files_before"] = fileStates(capture.filesBefore);
  out["files_after"] = fileStates(capture.filesAfter);
  out["filesystem_effects"] = arrayOf(capture.filesystemEffects, effectJson);
  out["truncated"] = capture.truncated;
  out["limitations"] = capture.limitations;
  out["residual_unknowns"] = arrayOf(capture.residualUnknowns, [](const ResidualUnknown& r) {
    return Json{{"scope", toString(r.scope)}, {"reason", r.reason}};
  });
  out["cleanup"] = Json{{"owned_process_group", "verified"}, {"temporary_root", "removed"}};
  return out;
}

}  // namespace rea::evidence
