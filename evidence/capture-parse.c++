// parseCapture (declared in evidence/capture.h): steps (a) and (b) of SPEC B §5.4, the legacy
// check and the shape check of an imported capture. Every member is read through ShapeCheck, so
// all problems are listed with their paths and unknown members are dropped (A14).

#include "evidence/capture.h"

#include <nlohmann/json.hpp>

#include "evidence/shape-check.h"

namespace rea::evidence {
namespace {

constexpr int64_t ANY = -MAX_SAFE_INTEGER;

class CaptureReader {
 public:
  CaptureReader(std::vector<Issue>& issues, bool owned) : check(issues), owned(owned) {}

  void read(const Json& root, Capture& out) {
    if (const Json* manifest = check.objectMember(root, "", "manifest")) {
      readManifest(*manifest, "manifest", out.manifest);
    }
    out.normalization = readNormalization(root);
    readList(root, "frames", out.frames, &CaptureReader::readFrame);
    readList(root, "rendered_frames", out.renderedFrames, &CaptureReader::readRendered);
    readList(root, "interaction_events", out.interactionEvents, &CaptureReader::readInteraction);
    if (const Json* exit = check.objectMember(root, "", "exit")) {
      out.exit.code = check.nullableInteger(*exit, "exit", "code", ANY);
      out.exit.signal = check.nullableInteger(*exit, "exit", "signal", ANY);
      out.exit.reason = ExitReason(check.choice(*exit, "exit", "reason", EXIT_REASON_NAMES));
    }
    if (const Json* settlement = check.objectMember(root, "", "settlement")) {
      const char* path = "settlement";
      out.settlement.state =
          SettlementState(check.choice(*settlement, path, "state", SETTLEMENT_STATE_NAMES));
      out.settlement.elapsedMs = check.integer(*settlement, path, "elapsed_ms", 0);
      out.settlement.cleanupOutcome =
          CleanupOutcome(check.choice(*settlement, path, "cleanup_outcome", CLEANUP_OUTCOME_NAMES));
    }
    readList(root, "process_samples", out.processSamples, &CaptureReader::readSample);
    readList(root, "filesystem_checkpoints", out.filesystemCheckpoints,
             &CaptureReader::readCheckpoint);
    readList(root, "shim_events", out.shimEvents, &CaptureReader::readShim);
    readList(root, "protocol_events", out.protocolEvents, &CaptureReader::readProtocol);
    readList(root, "files_before", out.filesBefore, &CaptureReader::readFileState);
    readList(root, "files_after", out.filesAfter, &CaptureReader::readFileState);
    readList(root, "filesystem_effects", out.filesystemEffects, &CaptureReader::readEffect);
    out.truncated = check.boolean(root, "", "truncated");
    out.limitations = check.strings(root, "", "limitations");
    readList(root, "residual_unknowns", out.residualUnknowns, &CaptureReader::readResidual);
    if (const Json* cleanup = check.objectMember(root, "", "cleanup")) {
      check.literal(*cleanup, "cleanup", "owned_process_group", "verified");
      check.literal(*cleanup, "cleanup", "temporary_root", "removed");
    }
  }

 private:
  ShapeCheck check;
  // The document is the caller's to give up (parseCapture(Json&&)): the largest strings are
  // moved out of it. The readers take `const Json&` like every other; `owned` says the object
  // behind it is not const, so the const_cast below is sound.
  bool owned;

  std::string largeString(const Json& in, const std::string& path, const char* key) {
    return owned ? check.takeString(const_cast<Json&>(in), path, key) : check.string(in, path, key);
  }

  template <typename T>
  void readList(const Json& parent, const char* key, std::vector<T>& out,
                void (CaptureReader::*readItem)(const Json&, const std::string&, T&)) {
    const Json* list = check.arrayMember(parent, "", key);
    if (list == nullptr) return;
    readItems(*list, key, out, readItem);
  }

  template <typename T>
  void readItems(const Json& list, const std::string& path, std::vector<T>& out,
                 void (CaptureReader::*readItem)(const Json&, const std::string&, T&)) {
    out.reserve(list.size());
    for (size_t i = 0; i < list.size(); ++i) {
      std::string itemPath = indexPath(path, i);
      out.emplace_back();
      if (check.object(list[i], itemPath)) (this->*readItem)(list[i], itemPath, out.back());
    }
  }

  void readManifest(const Json& in, const std::string& path, Manifest& out) {
    out.reaVersion = check.string(in, path, "rea_version", 1);
    out.providerVersion = check.string(in, path, "provider_version", 1);
    out.platform = check.string(in, path, "platform", 1);
    out.architecture = check.string(in, path, "architecture", 1);
    out.ptyBackend = check.string(in, path, "pty_backend", 1);
    out.startedAt = check.timestamp(in, path, "started_at");
    out.completedAt = check.timestamp(in, path, "completed_at");
    if (const Json* v = check.objectMember(in, path, "scenario")) out.scenario = *v;
    if (const Json* v = check.objectMember(in, path, "comparison_contract")) {
      out.comparisonContract = *v;
    }
    if (const Json* v = check.arrayMember(in, path, "shim_plan")) out.shimPlan = *v;
    if (const Json* v = check.objectMember(in, path, "replay_plan")) out.replayPlan = *v;
    out.fullScenarioSha256 = check.sha256(in, path, "full_scenario_sha256");
    out.comparisonContractSha256 = check.sha256(in, path, "comparison_contract_sha256");
    out.executableSha256 = check.sha256(in, path, "executable_sha256");
    out.normalizationSha256 = check.sha256(in, path, "normalization_sha256");
    out.shimPlanSha256 = check.sha256(in, path, "shim_plan_sha256");
    out.replayPlanSha256 = check.sha256(in, path, "replay_plan_sha256");
    if (auto observation =
            check.optionalChoice(in, path, "process_observation", PROCESS_OBSERVATION_NAMES)) {
      out.processObservation = ProcessObservation(*observation);
    }
    if (auto observation =
            check.optionalChoice(in, path, "exec_observation", EXEC_OBSERVATION_NAMES)) {
      out.execObservation = ExecObservation(*observation);
    }
  }

  // The normalization object rebuilt from its known members only (§3.7 shape, without the
  // scenario's 32-pattern cap, which the capture schema does not repeat), in the order of the
  // spec's table. Its commitment is computed over exactly this value.
  Json readNormalization(const Json& root) {
    Json out = Json::object();
    const Json* in = check.objectMember(root, "", "normalization");
    if (in == nullptr) return out;
    const std::string path = "normalization";
    out["paths"] = check.boolean(*in, path, "paths");
    out["pids"] = check.boolean(*in, path, "pids");
    out["ports"] = check.boolean(*in, path, "ports");
    out["time_bucket_ms"] = check.integer(*in, path, "time_bucket_ms", 1, 60'000);
    Json patterns = Json::array();
    if (const Json* list = check.arrayMember(*in, path, "patterns")) {
      for (size_t i = 0; i < list->size(); ++i) {
        const Json& item = (*list)[i];
        std::string itemPath = indexPath("normalization.patterns", i);
        if (!check.object(item, itemPath)) continue;
        Json pattern = Json::object();
        pattern["pattern"] = check.string(item, itemPath, "pattern", 0, 500);
        pattern["replacement"] = check.string(item, itemPath, "replacement", 0, 100);
        patterns.push_back(std::move(pattern));
      }
    }
    out["patterns"] = std::move(patterns);
    return out;
  }

  void readFrame(const Json& in, const std::string& path, TerminalFrame& out) {
    out.sequence = check.integer(in, path, "sequence", 0);
    out.atMs = check.integer(in, path, "at_ms", 0);
    out.data = largeString(in, path, "data");
  }

  void readRendered(const Json& in, const std::string& path, RenderedFrame& out) {
    out.sequence = check.integer(in, path, "sequence", 0);
    out.atMs = check.integer(in, path, "at_ms", 0);
    out.columns = check.integer(in, path, "columns", 1);
    out.rows = check.integer(in, path, "rows", 1);
    out.cursorX = check.integer(in, path, "cursor_x", 0);
    out.cursorY = check.integer(in, path, "cursor_y", 0);
    out.activeBuffer = ActiveBuffer(check.choice(in, path, "active_buffer", ACTIVE_BUFFER_NAMES));
    out.lines = check.strings(in, path, "lines");
    out.serializedState = largeString(in, path, "serialized_state");
  }

  void readInteraction(const Json& in, const std::string& path, InteractionEvent& out) {
    out.sequence = check.integer(in, path, "sequence", 0);
    out.scheduledAtMs = check.integer(in, path, "scheduled_at_ms", 0);
    out.dispatchedAtMs = check.integer(in, path, "dispatched_at_ms", 0);
    out.type = InteractionType(check.choice(in, path, "type", INTERACTION_TYPE_NAMES));
    out.data = check.string(in, path, "data");
    out.outcome = InteractionOutcome(check.choice(in, path, "outcome", INTERACTION_OUTCOME_NAMES));
    out.automatic = check.optionalBoolean(in, path, "automatic");
    auto when = in.find("when");
    if (when != in.end()) {
      if (when->is_object()) {
        out.when = JsonBox(*when);
      } else {
        check.fail(childPath(path, "when"), "must be an object");
      }
    }
    if (in.contains("held_at_ms")) out.heldAtMs = check.integer(in, path, "held_at_ms", 0);
  }

  void readSample(const Json& in, const std::string& path, ProcessSample& out) {
    out.atMs = check.integer(in, path, "at_ms", 0);
    out.pid = check.integer(in, path, "pid", 1);
    out.parentPid = check.integer(in, path, "parent_pid", 0);
    out.command = check.string(in, path, "command");
    out.processGroupId = check.nullableInteger(in, path, "process_group_id", 1);
    out.sessionId = check.nullableInteger(in, path, "session_id", 0);
  }

  void readFileState(const Json& in, const std::string& path, FileState& out) {
    out.path = check.string(in, path, "path");
    out.type = FileType(check.choice(in, path, "type", FILE_TYPE_NAMES));
    out.mode = check.integer(in, path, "mode", 0);
    out.size = check.integer(in, path, "size", 0);
    out.sha256 = check.nullableSha256(in, path, "sha256");
    out.symlinkTarget = check.nullableString(in, path, "symlink_target");
  }

  void readNullableFileState(const Json& in, const std::string& path, const char* key,
                             std::optional<FileState>& out) {
    const Json* value = check.member(in, path, key);
    if (value == nullptr || value->is_null()) return;
    std::string statePath = childPath(path, key);
    if (!value->is_object()) {
      check.fail(statePath, "must be an object or null");
      return;
    }
    out.emplace();
    readFileState(*value, statePath, *out);
  }

  void readEffect(const Json& in, const std::string& path, FileEffect& out) {
    out.path = check.string(in, path, "path");
    out.status = FileStatus(check.choice(in, path, "status", FILE_STATUS_NAMES));
    readNullableFileState(in, path, "before", out.before);
    readNullableFileState(in, path, "after", out.after);
  }

  void readCheckpoint(const Json& in, const std::string& path, Checkpoint& out) {
    out.name = check.string(in, path, "name");
    out.atMs = check.integer(in, path, "at_ms", 0);
    if (const Json* files = check.arrayMember(in, path, "files")) {
      readItems(*files, childPath(path, "files"), out.files, &CaptureReader::readFileState);
    }
    if (const Json* effects = check.arrayMember(in, path, "effects")) {
      readItems(*effects, childPath(path, "effects"), out.effects, &CaptureReader::readEffect);
    }
    out.truncated = check.boolean(in, path, "truncated");
  }

  void readShim(const Json& in, const std::string& path, ShimEvent& out) {
    out.sequence = check.integer(in, path, "sequence", 0);
    out.atMs = check.integer(in, path, "at_ms", 0);
    out.command = check.string(in, path, "command");
    out.routeIndex = check.nullableInteger(in, path, "route_index", 0);
    out.arguments = check.strings(in, path, "arguments");
    out.workingDirectory = check.string(in, path, "working_directory");
    out.outcome = ShimOutcome(check.choice(in, path, "outcome", SHIM_OUTCOME_NAMES));
  }

  void readProtocol(const Json& in, const std::string& path, ProtocolEvent& out) {
    out.sequence = check.integer(in, path, "sequence", 0);
    out.atMs = check.integer(in, path, "at_ms", 0);
    out.protocol = ProtocolKind(check.choice(in, path, "protocol", PROTOCOL_KIND_NAMES));
    out.direction =
        ProtocolDirection(check.choice(in, path, "direction", PROTOCOL_DIRECTION_NAMES));
    out.method = check.nullableString(in, path, "method");
    out.path = check.nullableString(in, path, "path");
    out.data = check.string(in, path, "data");
    out.outcome = ProtocolOutcome(check.choice(in, path, "outcome", PROTOCOL_OUTCOME_NAMES));
  }

  void readResidual(const Json& in, const std::string& path, ResidualUnknown& out) {
    out.scope = ResidualScope(check.choice(in, path, "scope", RESIDUAL_SCOPE_NAMES));
    out.reason = check.string(in, path, "reason");
  }
};

}  // namespace

namespace {

CaptureParseResult parseCapture(const Json& value, bool owned) {
  CaptureParseResult result;
  if (!value.is_object()) {
    result.issues.push_back(Issue{"", "must be an object"});
    return result;
  }
  auto version = value.find("schema_version");
  std::optional<int64_t> number = version == value.end() ? std::nullopt : safeInteger(*version);
  if (number == 3) {
    // (a): a v3 capture is refused before its shape is looked at.
    result.legacy = true;
    return result;
  }
  if (number != CAPTURE_SCHEMA_VERSION) {
    // Any other version (or none) gets the same refusal, which is the schema's literal-4 message.
    result.legacy = true;
    result.issues.push_back(Issue{"schema_version", LEGACY_CAPTURE_MESSAGE});
  }
  Capture capture;
  CaptureReader(result.issues, owned).read(value, capture);
  if (!result.legacy && result.issues.empty()) result.capture = std::move(capture);
  return result;
}

}  // namespace

CaptureParseResult parseCapture(const Json& value) {
  return parseCapture(value, false);
}

CaptureParseResult parseCapture(Json&& value) {
  return parseCapture(value, true);
}

}  // namespace rea::evidence
