#pragma once
// The scenario: the typed, fully defaulted form of the JSON a user hands to `rea capture-process`
// (SPEC B §3, with A9 `network_access: "loopback"` and A14 strictness). This module owns the
// types, the parser (scenario-parser.h and its scenario-parse*.c++, cross-field rules in
// scenario-rules.c++, JSON reading via strict-reader.h) and the JSON form (scenario-json.c++); the
// committed projections built from it live in projection.h.
//
// A parsed Scenario always satisfies every rule of B §3 (bounds, name rules, the cross-field
// rules of §3.5), so consumers never re-validate. A parsed scenario is always approved
// (`approved` must be literal true), so that field has no member here.
//
// Errors: parseScenario() returns every finding as an Issue (path + rule); it throws only on a
// bug. toJson() does not throw.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "evidence/issue.h"
#include "evidence/json.h"
#include "evidence/limits.h"
#include "evidence/network-access.h"

namespace rea::evidence {

enum class TargetSignal { INTERRUPT, TERMINATE, KILL };
// The signals a scenario may name: "SIGINT", "SIGTERM", "SIGKILL".

const char* signalName(TargetSignal signal);
// "SIGINT", "SIGTERM" or "SIGKILL".
int signalNumber(TargetSignal signal);
// The Linux signal number (2, 15, 9).

enum class OutputStream { STDOUT, STDERR };

struct NamedValue {
  std::string name;
  std::string value;
};
// One member of a JSON object of strings (environment, HTTP headers), in input order. Names are
// unique (JSON parsing keeps the last value of a repeated key).

struct Terminal {
  // Defaults and ranges: evidence/limits.h (terminal::).
  int columns = int(terminal::COLUMNS.defaultValue);
  int rows = int(terminal::ROWS.defaultValue);
  int scrollback = int(terminal::SCROLLBACK.defaultValue);
};

struct InputAction {
  std::string data;  // written to the PTY as is (UTF-8)
  bool sensitive = false;
};
struct ResizeAction {
  int columns = 0;  // terminal::COLUMNS range (evidence/limits.h)
  int rows = 0;     // terminal::ROWS range
};
struct SignalAction {
  TargetSignal signal = TargetSignal::INTERRUPT;
};

struct OutputLiteralCondition {
  std::string value;   // 1–10000 UTF-16 code units
  int occurrence = 1;  // 1–1000
};
struct OutputRegexCondition {
  std::string pattern;  // POSIX ERE, 1–1000 UTF-16 code units (condition-watch.h checkPattern)
  int occurrence = 1;   // 1–1000
};
struct ScreenLiteralCondition {
  std::string value;       // 1–1000 UTF-16 code units
  std::optional<int> row;  // 0–999, 0 = top visible row; absent = any row
};
struct CheckpointCondition {
  std::string name;  // a declared checkpoint
};
struct RootExitCondition {};

struct Condition {
  std::variant<OutputLiteralCondition, OutputRegexCondition, ScreenLiteralCondition,
               CheckpointCondition, RootExitCondition>
      kind;
};
// What a reactive event waits for, JSON `when.type` "output_literal" | "output_regex" |
// "screen_literal" | "checkpoint" | "root_exit" (docs/scenario.md, "Events that wait"). Output
// conditions see the normalised output (secrets and sensitive input already redacted) written
// after the event was armed; a screen condition sees the normalised rendered screen.

enum class OnTimeout { CONTINUE, STOP };
// What a reactive event's timeout does to the run: JSON "continue" | "stop".

struct Event {
  int64_t atMs = 0;
  // ≥0 and ≤ Scenario::timeoutMs. Events without `when` are non-decreasing in atMs among
  // themselves; with `when`, at_ms (default 0) is only the earliest dispatch time.
  std::variant<InputAction, ResizeAction, SignalAction> action;
  std::optional<Condition> when;     // absent: the event fires at atMs (B §3.2, A2)
  int64_t delayMs = 0;               // 0–300000: waited after the condition held
  std::optional<int64_t> timeoutMs;  // 1–300000 after arming; absent: wait until the run ends
  OnTimeout onTimeout = OnTimeout::CONTINUE;
};
// One interaction (B §3.2), JSON `type` "input" | "resize" | "signal". Events are armed one at
// a time, in scenario order: an event is armed once the previous one was dispatched (or timed
// out), and only then is its condition watched. delay_ms, timeout_ms and on_timeout need `when`.

const char* conditionTypeName(const Condition& condition);
// The JSON `when.type` of the condition.

struct TimeTrigger {
  int64_t atMs = 0;  // 0–300000
};
struct TerminalLiteralTrigger {
  std::string value;   // 1–10000 UTF-16 code units
  int occurrence = 1;  // 1–1000
};
struct RootExitTrigger {};
struct SettledTrigger {};

struct Trigger {
  std::variant<TimeTrigger, TerminalLiteralTrigger, RootExitTrigger, SettledTrigger> kind;
};
// JSON `type` "time" | "terminal_literal" | "root_exit" | "settled" (B §3.3).

struct CheckpointDeclaration {
  std::string name;  // unique; not "before" / "after_settlement"
  Trigger trigger;
};

struct ExitTermination {
  int code = 0;  // 0–255
};
struct SignalTermination {
  TargetSignal signal = TargetSignal::INTERRUPT;
};

struct Termination {
  std::variant<ExitTermination, SignalTermination> kind;
};
// How a shim invocation ends: JSON `type` "exit" | "signal".

struct ShimOutput {
  int64_t atMs = 0;  // 0–300000
  OutputStream stream = OutputStream::STDOUT;
  std::string data;  // ≤1,000,000 UTF-16 code units
};

struct Route {
  std::vector<std::string> arguments;  // ≤256; matched exactly against the shim's argv[1..]
  std::vector<ShimOutput> outputs;     // ≤1000
  Termination termination;
  int maxCalls = 1;  // 1–100
};

struct CommandShim {
  std::string name;           // unique; 1–128, [A-Za-z0-9][A-Za-z0-9._-]*
  std::vector<Route> routes;  // 1–100
};

struct Limits {
  // Defaults and ranges: evidence/limits.h (limit::).
  int64_t outputBytes = limit::OUTPUT_BYTES.defaultValue;
  int64_t frames = limit::FRAMES.defaultValue;
  int64_t files = limit::FILES.defaultValue;
  int64_t fileBytes = limit::FILE_BYTES.defaultValue;
  int64_t processes = limit::PROCESSES.defaultValue;
  int64_t protocolEvents = limit::PROTOCOL_EVENTS.defaultValue;
  int64_t protocolBodyBytes = limit::PROTOCOL_BODY_BYTES.defaultValue;
  int64_t connections = limit::CONNECTIONS.defaultValue;
  int64_t filesystemDepth = limit::FILESYSTEM_DEPTH.defaultValue;
};

struct NormalizationPattern {
  std::string pattern;      // literal (not a regex), ≤500 UTF-16 code units, may be empty
  std::string replacement;  // ≤100 UTF-16 code units
};

struct Normalization {
  bool paths = true;
  bool pids = true;
  bool ports = true;
  int64_t timeBucketMs = 10;                   // 1–60000
  std::vector<NormalizationPattern> patterns;  // ≤32
};

struct HttpRoute {
  std::string method;  // ≤16 UTF-16 code units, compared case-sensitively
  std::string path;    // starts with "/"
  int status = 200;    // 100–599 (required in JSON)
  std::string body;    // ≤1,000,000 UTF-16 code units
  std::vector<NamedValue> requestHeaders;
  std::optional<std::string> requestBody;  // ≤1,000,000; absent = any body
  std::vector<NamedValue> responseHeaders;
  int64_t delayMs = 0;  // 0–30000
  bool disconnect = false;
  int maxCalls = 1;  // 1–100
};

struct WebSocketMessage {
  std::string data;     // ≤1,000,000 UTF-16 code units
  int64_t delayMs = 0;  // 0–30000
};

struct WebSocketConnection {
  std::vector<WebSocketMessage> messages;  // ≤100 (required in JSON)
  bool disconnectAfter = false;
};

struct Replay {
  std::vector<HttpRoute> http;                            // ≤100
  std::vector<std::string> websocketMessages;             // ≤100, each ≤1,000,000
  std::vector<WebSocketConnection> websocketConnections;  // ≤100
};

struct Scenario {
  bool unknownRegistryApproved = false;         // JSON: literal true, or absent (false)
  std::string executable;                       // starts with "/"
  std::vector<std::string> arguments;           // ≤256
  std::string workingDirectory;                 // starts with "/"
  std::vector<NamedValue> environment;          // names [A-Za-z_][A-Za-z0-9_]*, none reserved
  std::vector<std::string> inheritEnvironment;  // ≤64, not also in environment
  std::vector<std::string> secretAliases;       // ≤64, each a name of environment
  NetworkAccess networkAccess = NetworkAccess::HOST;
  std::vector<std::string> filesystemRoots;  // ≤16, each starts with "/"
  Terminal terminal;
  std::vector<CheckpointDeclaration> checkpoints;       // ≤64
  std::vector<CommandShim> commandShims;                // ≤32
  std::vector<Event> events;                            // ≤1000
  int64_t timeoutMs = timing::TIMEOUT_MS.defaultValue;  // range: evidence/limits.h (timing::)
  int64_t idleTimeoutMs = timing::IDLE_TIMEOUT_MS.defaultValue;
  int64_t settleMs = 100;  // 0–10000
  Limits limits;
  Normalization normalization;
  Replay replay;
};

struct ScenarioParseResult {
  std::optional<Scenario> scenario;  // set exactly when `issues` is empty
  std::vector<Issue> issues;         // every finding, in document order then cross-field rules
};

ScenarioParseResult parseScenario(const Json& input);
// Parses and validates a scenario exactly as B0.1/B §3 describe, plus A9 and A14: no type
// coercion (1.0 is the integer 1, 1.5 and "80" are not integers), defaults only for absent keys
// (null is a type error), string lengths in UTF-16 code units, unknown keys rejected at every
// level, all eight cross-field rules of §3.5. Collects every issue rather than stopping at the
// first. Issue paths look like `events[3].at_ms`; messages name the rule and its bound.

Json toJson(const Scenario& scenario);
// The complete parsed scenario with every default, in the field order of B §3's tables
// (`approved: true` first). `unknown_registry_approved` is present only when true and an absent
// `request_body` is omitted, so toJson(parse(x)) re-parses to the same Scenario.

Json toJson(const Event& event);
Json toJson(const Condition& condition);
Json toJson(const CheckpointDeclaration& checkpoint);
Json toJson(const CommandShim& shim);
Json toJson(const Limits& limits);
Json toJson(const Normalization& normalization);
Json toJson(const Replay& replay);
// The JSON forms of the parts, as they appear inside toJson(Scenario).

}  // namespace rea::evidence
