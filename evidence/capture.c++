#include "evidence/capture.h"

#include <nlohmann/json.hpp>

#include "evidence/canonical-json.h"
#include "evidence/commitment.h"

namespace rea::evidence {

const char LEGACY_CAPTURE_MESSAGE[] =
    "Process Capture v3 is unsupported. Re-run the scenario with this REA version using "
    "capture_process_scenario to produce Process Capture v4; captures cannot be upgraded because "
    "v4 requires new manifest and settlement evidence.";

const char INVALID_CAPTURE_PREFIX[] = "Invalid Process Capture v4: ";

// JsonBox ------------------------------------------------------------------------------------

JsonBox::JsonBox() : value(std::make_unique<Json>()) {}
JsonBox::JsonBox(const Json& value) : value(std::make_unique<Json>(value)) {}
JsonBox::JsonBox(Json&& value) : value(std::make_unique<Json>(std::move(value))) {}
JsonBox::JsonBox(const JsonBox& other) : value(std::make_unique<Json>(*other.value)) {}
JsonBox::JsonBox(JsonBox&& other) : value(std::make_unique<Json>()) {
  value.swap(other.value);
}
JsonBox& JsonBox::operator=(const JsonBox& other) {
  *value = *other.value;
  return *this;
}
JsonBox& JsonBox::operator=(JsonBox&& other) {
  value.swap(other.value);
  *other.value = nullptr;
  return *this;
}
JsonBox::~JsonBox() noexcept(false) {}

bool operator==(const JsonBox& a, const JsonBox& b) {
  return canonicalJson(*a) == canonicalJson(*b);
}

// Enumerator names ----------------------------------------------------------------------------

#define REA_ENUM_NAME(Type, TABLE)               \
  const char* toString(Type value) {             \
    return TABLE.at(static_cast<size_t>(value)); \
  }
REA_ENUM_NAME(ActiveBuffer, ACTIVE_BUFFER_NAMES)
REA_ENUM_NAME(InteractionType, INTERACTION_TYPE_NAMES)
REA_ENUM_NAME(InteractionOutcome, INTERACTION_OUTCOME_NAMES)
REA_ENUM_NAME(ExitReason, EXIT_REASON_NAMES)
REA_ENUM_NAME(SettlementState, SETTLEMENT_STATE_NAMES)
REA_ENUM_NAME(CleanupOutcome, CLEANUP_OUTCOME_NAMES)
REA_ENUM_NAME(FileType, FILE_TYPE_NAMES)
REA_ENUM_NAME(FileStatus, FILE_STATUS_NAMES)
REA_ENUM_NAME(ShimOutcome, SHIM_OUTCOME_NAMES)
REA_ENUM_NAME(ProtocolKind, PROTOCOL_KIND_NAMES)
REA_ENUM_NAME(ProtocolDirection, PROTOCOL_DIRECTION_NAMES)
REA_ENUM_NAME(ProtocolOutcome, PROTOCOL_OUTCOME_NAMES)
REA_ENUM_NAME(ResidualScope, RESIDUAL_SCOPE_NAMES)
REA_ENUM_NAME(ProcessObservation, PROCESS_OBSERVATION_NAMES)
REA_ENUM_NAME(ExecObservation, EXEC_OBSERVATION_NAMES)
#undef REA_ENUM_NAME

// Equality ------------------------------------------------------------------------------------

bool operator==(const TerminalFrame& a, const TerminalFrame& b) {
  return a.sequence == b.sequence && a.atMs == b.atMs && a.data == b.data;
}

bool operator==(const RenderedFrame& a, const RenderedFrame& b) {
  return a.sequence == b.sequence && a.atMs == b.atMs && a.columns == b.columns &&
         a.rows == b.rows && a.cursorX == b.cursorX && a.cursorY == b.cursorY &&
         a.activeBuffer == b.activeBuffer && a.lines == b.lines &&
         a.serializedState == b.serializedState;
}

bool operator==(const InteractionEvent& a, const InteractionEvent& b) {
  return a.sequence == b.sequence && a.scheduledAtMs == b.scheduledAtMs &&
         a.dispatchedAtMs == b.dispatchedAtMs && a.type == b.type && a.data == b.data &&
         a.outcome == b.outcome && a.automatic == b.automatic &&
         a.when.has_value() == b.when.has_value() && (!a.when || **a.when == **b.when) &&
         a.heldAtMs == b.heldAtMs;
}

bool operator==(const Exit& a, const Exit& b) {
  return a.code == b.code && a.signal == b.signal && a.reason == b.reason;
}

bool operator==(const Settlement& a, const Settlement& b) {
  return a.state == b.state && a.elapsedMs == b.elapsedMs && a.cleanupOutcome == b.cleanupOutcome;
}

bool operator==(const ProcessSample& a, const ProcessSample& b) {
  return a.atMs == b.atMs && a.pid == b.pid && a.parentPid == b.parentPid &&
         a.command == b.command && a.processGroupId == b.processGroupId &&
         a.sessionId == b.sessionId;
}

bool operator==(const FileState& a, const FileState& b) {
  return a.path == b.path && a.type == b.type && a.mode == b.mode && a.size == b.size &&
         a.sha256 == b.sha256 && a.symlinkTarget == b.symlinkTarget;
}

bool operator==(const FileEffect& a, const FileEffect& b) {
  return a.path == b.path && a.status == b.status && a.before == b.before && a.after == b.after;
}

bool operator==(const Checkpoint& a, const Checkpoint& b) {
  return a.name == b.name && a.atMs == b.atMs && a.files == b.files && a.effects == b.effects &&
         a.truncated == b.truncated;
}

bool operator==(const ShimEvent& a, const ShimEvent& b) {
  return a.sequence == b.sequence && a.atMs == b.atMs && a.command == b.command &&
         a.routeIndex == b.routeIndex && a.arguments == b.arguments &&
         a.workingDirectory == b.workingDirectory && a.outcome == b.outcome;
}

bool operator==(const ProtocolEvent& a, const ProtocolEvent& b) {
  return a.sequence == b.sequence && a.atMs == b.atMs && a.protocol == b.protocol &&
         a.direction == b.direction && a.method == b.method && a.path == b.path &&
         a.data == b.data && a.outcome == b.outcome;
}

bool operator==(const ResidualUnknown& a, const ResidualUnknown& b) {
  return a.scope == b.scope && a.reason == b.reason;
}

bool operator==(const Cleanup&, const Cleanup&) {
  return true;
}

bool operator==(const Manifest& a, const Manifest& b) {
  return a.reaVersion == b.reaVersion && a.providerVersion == b.providerVersion &&
         a.platform == b.platform && a.architecture == b.architecture &&
         a.ptyBackend == b.ptyBackend && a.startedAt == b.startedAt &&
         a.completedAt == b.completedAt && a.scenario == b.scenario &&
         a.comparisonContract == b.comparisonContract && a.shimPlan == b.shimPlan &&
         a.replayPlan == b.replayPlan && a.fullScenarioSha256 == b.fullScenarioSha256 &&
         a.comparisonContractSha256 == b.comparisonContractSha256 &&
         a.executableSha256 == b.executableSha256 &&
         a.normalizationSha256 == b.normalizationSha256 && a.shimPlanSha256 == b.shimPlanSha256 &&
         a.replayPlanSha256 == b.replayPlanSha256 && a.processObservation == b.processObservation &&
         a.execObservation == b.execObservation;
}

bool operator==(const Capture& a, const Capture& b) {
  return a.manifest == b.manifest && a.normalization == b.normalization && a.frames == b.frames &&
         a.renderedFrames == b.renderedFrames && a.interactionEvents == b.interactionEvents &&
         a.exit == b.exit && a.settlement == b.settlement && a.processSamples == b.processSamples &&
         a.filesystemCheckpoints == b.filesystemCheckpoints && a.shimEvents == b.shimEvents &&
         a.protocolEvents == b.protocolEvents && a.filesBefore == b.filesBefore &&
         a.filesAfter == b.filesAfter && a.filesystemEffects == b.filesystemEffects &&
         a.truncated == b.truncated && a.limitations == b.limitations &&
         a.residualUnknowns == b.residualUnknowns && a.cleanup == b.cleanup;
}

void commitManifest(Capture& capture) {
  Manifest& m = capture.manifest;
  m.fullScenarioSha256 = commitment(*m.scenario);
  m.comparisonContractSha256 = commitment(*m.comparisonContract);
  m.normalizationSha256 = commitment(*capture.normalization);
  m.shimPlanSha256 = commitment(*m.shimPlan);
  m.replayPlanSha256 = commitment(*m.replayPlan);
}

// Parse result --------------------------------------------------------------------------------

std::string CaptureParseResult::failureMessage() const {
  if (legacy) return LEGACY_CAPTURE_MESSAGE;
  return INVALID_CAPTURE_PREFIX + formatIssues(issues);
}

}  // namespace rea::evidence
