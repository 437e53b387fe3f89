#pragma once
// The Process Capture v4 model: the capture object an Evidence record carries as its
// `normalized_result` (SPEC B §4.2, §4.3, §5.1), as typed structs, plus its JSON form.
//
// - Field order in every struct and in toJson() is the order of the spec's tables; REA's parser
//   drops unknown members, so our additions (A1) are only ever *added* members, each optional
//   and omitted when absent: `manifest.process_observation` (A8),
//   `manifest.exec_observation` (A15) and
//   `interaction_events[].automatic` (auto-answered terminal queries).
// - The values the manifest commits to (`scenario`, `comparison_contract`, `shim_plan`,
//   `replay_plan`) and the top-level `normalization` are kept as JSON values: validation
//   recomputes their commitments from exactly these values (§5.2), and an imported capture must
//   reproduce its producer's bytes, whatever that producer put there.
// - Reading a capture from JSON is parseCapture() (shape check, capture-parse.c++); the rules
//   across fields are validateCapture() in evidence/validate.h.
//
// Errors: toJson() throws nothing for a well-formed model; JsonBox only fails on allocation.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "evidence/issue.h"
#include "evidence/json.h"

namespace rea::evidence {

constexpr int64_t CAPTURE_SCHEMA_VERSION = 4;

extern const char LEGACY_CAPTURE_MESSAGE[];
// The refusal for a capture whose `schema_version` is not 4 (REA's wording, B §4.2): v3 is
// unsupported, re-run the scenario to produce v4, captures cannot be upgraded.

extern const char INVALID_CAPTURE_PREFIX[];
// "Invalid Process Capture v4: ", the start of every shape or validation failure text (§5.4).

class JsonBox {
  // One owned JSON value, usable as a struct member where only the forward declaration of Json
  // is visible (evidence/ headers do not include <nlohmann/json.hpp>). Copies deeply; a
  // moved-from box holds null.
 public:
  JsonBox();
  JsonBox(const Json& value);
  JsonBox(Json&& value);
  JsonBox(const JsonBox& other);
  JsonBox(JsonBox&& other);
  JsonBox& operator=(const JsonBox& other);
  JsonBox& operator=(JsonBox&& other);
  ~JsonBox() noexcept(false);

  const Json& operator*() const { return *value; }
  Json& operator*() { return *value; }
  const Json* operator->() const { return value.get(); }
  Json* operator->() { return value.get(); }

 private:
  std::unique_ptr<Json> value;  // never null
};

bool operator==(const JsonBox& a, const JsonBox& b);
// Deep equality ignoring object member order and number spelling (`1` == `1.0`): the two values
// have the same canonical JSON, i.e. the same commitment.

// ---------------------------------------------------------------------------------------------
// Enumerations. Each `*_NAMES` table lists the JSON spellings in enumerator order.

enum class ActiveBuffer { NORMAL, ALTERNATE };
inline constexpr std::array<const char*, 2> ACTIVE_BUFFER_NAMES = {"normal", "alternate"};

enum class InteractionType { INPUT, RESIZE, SIGNAL };
inline constexpr std::array<const char*, 3> INTERACTION_TYPE_NAMES = {"input", "resize", "signal"};

enum class InteractionOutcome { DISPATCHED, TARGET_EXITED, FAILED, TIMED_OUT };
inline constexpr std::array<const char*, 4> INTERACTION_OUTCOME_NAMES = {
    "dispatched", "target_exited", "failed", "timed_out"};

enum class ExitReason { EXITED, TIMEOUT, IDLE_TIMEOUT };
inline constexpr std::array<const char*, 3> EXIT_REASON_NAMES = {"exited", "timeout",
                                                                 "idle_timeout"};

enum class SettlementState { QUIESCED, ALIVE_AT_DEADLINE, UNVERIFIABLE };
inline constexpr std::array<const char*, 3> SETTLEMENT_STATE_NAMES = {
    "quiesced", "alive_at_deadline", "unverifiable"};

enum class CleanupOutcome { NOT_REQUIRED, CLEANED, FAILED };
inline constexpr std::array<const char*, 3> CLEANUP_OUTCOME_NAMES = {"not_required", "cleaned",
                                                                     "failed"};

enum class FileType { FILE, DIRECTORY, SYMLINK, OTHER };
inline constexpr std::array<const char*, 4> FILE_TYPE_NAMES = {"file", "directory", "symlink",
                                                               "other"};

enum class FileStatus { CREATED, MODIFIED, DELETED, UNCHANGED };
inline constexpr std::array<const char*, 4> FILE_STATUS_NAMES = {"created", "modified", "deleted",
                                                                 "unchanged"};

enum class ShimOutcome { MATCHED, UNMATCHED, EXHAUSTED };
inline constexpr std::array<const char*, 3> SHIM_OUTCOME_NAMES = {"matched", "unmatched",
                                                                  "exhausted"};

enum class ProtocolKind { HTTP, WEBSOCKET };
inline constexpr std::array<const char*, 2> PROTOCOL_KIND_NAMES = {"http", "websocket"};

enum class ProtocolDirection { REQUEST, RESPONSE, RECEIVED, SENT };
inline constexpr std::array<const char*, 4> PROTOCOL_DIRECTION_NAMES = {"request", "response",
                                                                        "received", "sent"};

enum class ProtocolOutcome { MATCHED, UNMATCHED, SCRIPT_EXHAUSTED, DISCONNECTED };
inline constexpr std::array<const char*, 4> PROTOCOL_OUTCOME_NAMES = {
    "matched", "unmatched", "script_exhausted", "disconnected"};

enum class ResidualScope {
  TERMINAL,
  INTERACTION,
  EXIT,
  PROCESS,
  FILESYSTEM,
  PROTOCOL,
  SHIM,
  CLEANUP,
  NETWORK
};
inline constexpr std::array<const char*, 9> RESIDUAL_SCOPE_NAMES = {
    "terminal", "interaction", "exit",    "process", "filesystem",
    "protocol", "shim",        "cleanup", "network"};

enum class ProcessObservation { EXACT, SAMPLED };
inline constexpr std::array<const char*, 2> PROCESS_OBSERVATION_NAMES = {"exact", "sampled"};
enum class ExecObservation { SECCOMP_NOTIFY, PROCFS };
inline constexpr std::array<const char*, 2> EXEC_OBSERVATION_NAMES = {"seccomp_notify", "procfs"};

const char* toString(ActiveBuffer value);
const char* toString(InteractionType value);
const char* toString(InteractionOutcome value);
const char* toString(ExitReason value);
const char* toString(SettlementState value);
const char* toString(CleanupOutcome value);
const char* toString(FileType value);
const char* toString(FileStatus value);
const char* toString(ShimOutcome value);
const char* toString(ProtocolKind value);
const char* toString(ProtocolDirection value);
const char* toString(ProtocolOutcome value);
const char* toString(ResidualScope value);
const char* toString(ProcessObservation value);
const char* toString(ExecObservation value);
// The JSON spelling of an enumerator.

// ---------------------------------------------------------------------------------------------
// Nested objects (B §4.3). Times are integer milliseconds relative to T0 (§4.5).

struct TerminalFrame {
  // One accepted PTY read chunk, normalised (§4.6). `sequence` = index.
  int64_t sequence = 0;
  int64_t atMs = 0;
  std::string data;
};

struct RenderedFrame {
  // Terminal state after a chunk or a resize (§6.11, A11).
  int64_t sequence = 0;
  int64_t atMs = 0;
  int64_t columns = 1;  // ≥ 1
  int64_t rows = 1;     // ≥ 1
  int64_t cursorX = 0;  // ≥ 0
  int64_t cursorY = 0;  // ≥ 0
  ActiveBuffer activeBuffer = ActiveBuffer::NORMAL;
  std::vector<std::string> lines;  // one per visible row
  std::string serializedState;
};

struct InteractionEvent {
  int64_t sequence = 0;
  int64_t scheduledAtMs = 0;
  int64_t dispatchedAtMs = 0;
  InteractionType type = InteractionType::INPUT;
  std::string data;  // normalised input, `<redacted-input:N-bytes>`, `<not-dispatched>`,
                     // `COLSxROWS` or a signal name (§4.3)
  InteractionOutcome outcome = InteractionOutcome::DISPATCHED;
  std::optional<bool> automatic;    // ours: true for an auto-answered terminal query
  std::optional<JsonBox> when;      // ours: what a reactive event waited for (its scenario `when`)
  std::optional<int64_t> heldAtMs;  // ours: when that condition held (absent: it never held)
};

struct Exit {
  // A4: normal exit {N, null, exited}; signal death {null, N, exited}; killed on a deadline
  // {null, 9, timeout|idle_timeout}. REA's `signal: 0` form is accepted on import.
  std::optional<int64_t> code;
  std::optional<int64_t> signal;
  ExitReason reason = ExitReason::EXITED;
};

struct Settlement {
  SettlementState state = SettlementState::QUIESCED;
  int64_t elapsedMs = 0;
  CleanupOutcome cleanupOutcome = CleanupOutcome::NOT_REQUIRED;
};

struct ProcessSample {
  // Ids are renumbered (§4.6.4).
  int64_t atMs = 0;
  int64_t pid = 1;        // ≥ 1
  int64_t parentPid = 0;  // ≥ 0
  std::string command;
  std::optional<int64_t> processGroupId;  // ≥ 1 or null
  std::optional<int64_t> sessionId;       // ≥ 0 or null
};

struct FileState {
  std::string path;  // `root_<i>:<relative>`
  FileType type = FileType::FILE;
  int64_t mode = 0;  // full st_mode
  int64_t size = 0;
  std::optional<std::string> sha256;         // 64 lowercase hex for hashed regular files
  std::optional<std::string> symlinkTarget;  // for symlinks
};

struct FileEffect {
  std::string path;
  FileStatus status = FileStatus::UNCHANGED;
  std::optional<FileState> before;
  std::optional<FileState> after;
};

struct Checkpoint {
  std::string name;
  int64_t atMs = 0;
  std::vector<FileState> files;
  std::vector<FileEffect> effects;
  bool truncated = false;
};

struct ShimEvent {
  int64_t sequence = 0;
  int64_t atMs = 0;
  std::string command;
  std::optional<int64_t> routeIndex;  // ≥ 0 or null
  std::vector<std::string> arguments;
  std::string workingDirectory;
  ShimOutcome outcome = ShimOutcome::UNMATCHED;
};

struct ProtocolEvent {
  int64_t sequence = 0;
  int64_t atMs = 0;
  ProtocolKind protocol = ProtocolKind::HTTP;
  ProtocolDirection direction = ProtocolDirection::REQUEST;
  std::optional<std::string> method;
  std::optional<std::string> path;
  std::string data;
  ProtocolOutcome outcome = ProtocolOutcome::MATCHED;
};

struct ResidualUnknown {
  ResidualScope scope = ResidualScope::PROCESS;
  std::string reason;
};

struct Cleanup {
  // Always `{owned_process_group: "verified", temporary_root: "removed"}`: a capture exists only
  // when cleanup was verified, so the constants carry no state here.
};

struct Manifest {
  // B §5.1, in emitted order, then our optional additions.
  std::string reaVersion;
  std::string providerVersion;  // "3"
  std::string platform;         // Node naming: linux
  std::string architecture;     // Node naming: x64, arm64
  std::string ptyBackend;       // any non-empty string on import (A1); REA writes "node-pty"
  std::string startedAt;        // ISO UTC with Z (evidence/timestamp.h)
  std::string completedAt;
  JsonBox scenario;            // full scenario projection (object)
  JsonBox comparisonContract;  // comparison contract projection (object)
  JsonBox shimPlan;            // the parsed `command_shims` (array)
  JsonBox replayPlan;          // the parsed `replay` (object)
  std::string fullScenarioSha256;
  std::string comparisonContractSha256;
  std::string executableSha256;
  std::string normalizationSha256;
  std::string shimPlanSha256;
  std::string replayPlanSha256;
  std::optional<ProcessObservation> processObservation;  // ours (A8); absent in REA captures
  std::optional<ExecObservation> execObservation;
  // ours (A15): each exec seen before it happened (seccomp user notification, either mode) or,
  // exact mode, its command line read from /proc after the kernel's exec event
};

struct Capture {
  // `schema_version` is always CAPTURE_SCHEMA_VERSION and so is not stored.
  Manifest manifest;
  JsonBox normalization;  // the scenario's normalization object (§3.7 shape)
  std::vector<TerminalFrame> frames;
  std::vector<RenderedFrame> renderedFrames;
  std::vector<InteractionEvent> interactionEvents;
  Exit exit;
  Settlement settlement;
  std::vector<ProcessSample> processSamples;
  std::vector<Checkpoint> filesystemCheckpoints;
  std::vector<ShimEvent> shimEvents;
  std::vector<ProtocolEvent> protocolEvents;
  std::vector<FileState> filesBefore;
  std::vector<FileState> filesAfter;
  std::vector<FileEffect> filesystemEffects;
  bool truncated = false;
  std::vector<std::string> limitations;
  std::vector<ResidualUnknown> residualUnknowns;
  Cleanup cleanup;
};

bool operator==(const TerminalFrame& a, const TerminalFrame& b);
bool operator==(const RenderedFrame& a, const RenderedFrame& b);
bool operator==(const InteractionEvent& a, const InteractionEvent& b);
bool operator==(const Exit& a, const Exit& b);
bool operator==(const Settlement& a, const Settlement& b);
bool operator==(const ProcessSample& a, const ProcessSample& b);
bool operator==(const FileState& a, const FileState& b);
bool operator==(const FileEffect& a, const FileEffect& b);
bool operator==(const Checkpoint& a, const Checkpoint& b);
bool operator==(const ShimEvent& a, const ShimEvent& b);
bool operator==(const ProtocolEvent& a, const ProtocolEvent& b);
bool operator==(const ResidualUnknown& a, const ResidualUnknown& b);
bool operator==(const Cleanup& a, const Cleanup& b);
bool operator==(const Manifest& a, const Manifest& b);
bool operator==(const Capture& a, const Capture& b);
// Member-wise equality (JSON members as JsonBox equality).

void commitManifest(Capture& capture);
// Sets the manifest's five value commitments (`full_scenario_sha256`,
// `comparison_contract_sha256`, `normalization_sha256` from the top-level normalization,
// `shim_plan_sha256`, `replay_plan_sha256`) to H of the capture's own embedded values, exactly
// as validation rule 2 recomputes them. `executable_sha256` is the hash of a file and is left
// as set (rule 1 wants it equal to `manifest.scenario.executable_sha256`).

// ---------------------------------------------------------------------------------------------
// JSON form (capture-json.c++, capture-parse.c++).

Json toJson(const Capture& capture);
// The capture object with `schema_version: 4` first and every member in spec order; optional
// additions omitted when absent. parseCapture(toJson(c)) gives back `c`.
Json toJson(Capture&& capture);
// The same value, moving the frames' text instead of copying it (`capture` is left without
// frames).

Json toJson(const FileState& state);
Json toJson(const Checkpoint& checkpoint);
// Single nested objects, for consumers that compare or print parts of a capture.

struct CaptureParseResult {
  std::optional<Capture> capture;  // set exactly when the shape check passed
  bool legacy = false;        // `schema_version` was not 4: the failure is LEGACY_CAPTURE_MESSAGE
  std::vector<Issue> issues;  // every shape problem found, in document order

  bool ok() const { return capture.has_value(); }
  std::string failureMessage() const;
  // LEGACY_CAPTURE_MESSAGE when `legacy`; else INVALID_CAPTURE_PREFIX + formatIssues(issues).
};

CaptureParseResult parseCapture(const Json& value);
CaptureParseResult parseCapture(Json&& value);
// The same; the second moves the frames' data and rendered states out of `value` instead of
// copying them (an import owns the document it reads).
// Steps (a) and (b) of B §5.4: `schema_version` exactly 3 fails at once with the legacy message
// (no further checks); any other value but 4 (5, "4", absent) is legacy too, with the shape
// issues of the rest collected as well. Then the shape of every member (§4.2–4.3, §5.1): types,
// enums, integer bounds (JavaScript safe integers; `1.0` is the integer 1), SHA-256 syntax,
// timestamp syntax. Unknown members are dropped at every level (A14), including inside
// `normalization`; the JSON values under `manifest` that are committed to are kept verbatim.
// Accepts REA's own v4 captures: any non-empty `pty_backend`, `exit.signal: 0` with `code: 0`,
// every residual scope of the enum. Semantic rules are not checked here (validateCapture).

}  // namespace rea::evidence
