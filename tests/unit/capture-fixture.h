#pragma once
// A realistic Process Capture v4 built in code, shared by the capture, validate and
// evidence-record tests: a Python program reading input, with a resize, an auto-answered
// terminal query, a checkpoint on a terminal literal, a command shim and one HTTP route.
// Commitments are computed with our own code (commitAll), so tests that break one rule change
// exactly one thing and re-commit the rest.

#include <string>

#include <nlohmann/json.hpp>

#include "evidence/capture.h"
#include "evidence/commitment.h"

namespace rea::evidence::testing {

inline Json defaultNormalization() {
  return Json::parse(
      R"({"paths":true,"pids":true,"ports":true,"time_bucket_ms":10,"patterns":[]})");
}

// The full scenario projection (B §5.2) of the sample scenario, all defaults applied.
inline Json sampleScenarioProjection() {
  return Json::parse(R"({
    "approved": true,
    "executable": "/usr/bin/python3",
    "arguments": ["app.py", "--greet"],
    "working_directory": "/work/proj",
    "environment": {"LANG": "C.UTF-8", "API_TOKEN": "<redacted-secret>"},
    "inherit_environment": ["PATH"],
    "secret_aliases": ["API_TOKEN"],
    "network_access": "host",
    "filesystem_roots": ["/work/proj/out"],
    "terminal": {"columns": 80, "rows": 24, "scrollback": 1000},
    "checkpoints": [{"name": "ready", "trigger": {"type": "terminal_literal", "value": "ready>",
                                                   "occurrence": 1}}],
    "command_shims": [{"name": "codex", "routes": [{"arguments": ["--version"], "max_calls": 1,
      "outputs": [{"at_ms": 0, "data": "codex 1.2.3\n", "stream": "stdout"}],
      "termination": {"code": 0, "type": "exit"}}]}],
    "events": [{"type": "input", "at_ms": 100, "data": "hello\r", "sensitive": false},
               {"type": "resize", "at_ms": 200, "columns": 100, "rows": 40}],
    "timeout_ms": 30000,
    "idle_timeout_ms": 30000,
    "settle_ms": 100,
    "limits": {"output_bytes": 1000000, "frames": 10000, "files": 10000,
               "file_bytes": 10000000, "processes": 1000, "protocol_events": 10000,
               "protocol_body_bytes": 1000000, "connections": 100, "filesystem_depth": 16},
    "normalization": {"paths": true, "pids": true, "ports": true, "time_bucket_ms": 10,
                      "patterns": []},
    "replay": {"http": [{"method": "GET", "path": "/v1/status", "status": 200,
                         "body": "{\"ok\":true}", "request_headers": {}, "response_headers": {},
                         "delay_ms": 0, "disconnect": false, "max_calls": 1}],
               "websocket_messages": [], "websocket_connections": []},
    "unknown_registry_approved": false,
    "executable_sha256": "3a1f0c6e9d2b4a7c8e5f1d0b9a8c7e6f5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a"
  })");
}

// The comparison contract: exactly the fifteen scenario members of B §5.2.
inline Json contractOf(const Json& scenario) {
  Json contract = Json::object();
  for (const char* key :
       {"working_directory", "inherit_environment", "secret_aliases", "network_access",
        "filesystem_roots", "terminal", "checkpoints", "events", "timeout_ms", "idle_timeout_ms",
        "settle_ms", "limits", "normalization", "command_shims", "replay"}) {
    contract[key] = scenario.at(key);
  }
  return contract;
}

// Recomputes the five embedded-value commitments and the executable hash from the capture's own
// values, as the capture engine does when it builds the manifest.
inline void commitAll(Capture& capture) {
  Manifest& m = capture.manifest;
  m.executableSha256 = m.scenario->at("executable_sha256").get<std::string>();
  m.fullScenarioSha256 = commitment(*m.scenario);
  m.comparisonContractSha256 = commitment(*m.comparisonContract);
  m.normalizationSha256 = commitment(*capture.normalization);
  m.shimPlanSha256 = commitment(*m.shimPlan);
  m.replayPlanSha256 = commitment(*m.replayPlan);
}

inline FileState fileState(std::string path, FileType type, int64_t mode, int64_t size,
                           std::optional<std::string> sha256 = std::nullopt,
                           std::optional<std::string> symlinkTarget = std::nullopt) {
  FileState state;
  state.path = std::move(path);
  state.type = type;
  state.mode = mode;
  state.size = size;
  state.sha256 = std::move(sha256);
  state.symlinkTarget = std::move(symlinkTarget);
  return state;
}

inline Capture sampleCapture() {
  Capture c;
  Json scenario = sampleScenarioProjection();
  c.manifest.reaVersion = "0.1.0";
  c.manifest.providerVersion = "3";
  c.manifest.platform = "linux";
  c.manifest.architecture = "x64";
  c.manifest.ptyBackend = "rea-pty";
  c.manifest.startedAt = "2026-07-14T09:30:00.125Z";
  c.manifest.completedAt = "2026-07-14T09:30:01.480Z";
  c.manifest.comparisonContract = contractOf(scenario);
  c.manifest.shimPlan = scenario.at("command_shims");
  c.manifest.replayPlan = scenario.at("replay");
  c.manifest.scenario = std::move(scenario);
  c.manifest.processObservation = ProcessObservation::EXACT;
  c.normalization = defaultNormalization();

  c.frames = {{0, 10, "Starting app\r\n"},
              {1, 30, "\x1b[6n"},
              {2, 40, "ready> "},
              {3, 120, "hello\r\nHi, hello!\r\nready> "}};

  RenderedFrame first;
  first.sequence = 0;
  first.atMs = 10;
  first.columns = 80;
  first.rows = 24;
  first.cursorX = 0;
  first.cursorY = 1;
  first.lines = std::vector<std::string>(24);
  first.lines[0] = "Starting app";
  first.serializedState = "rows=24;cols=80;cursor=0,1";
  RenderedFrame resized = first;
  resized.sequence = 1;
  resized.atMs = 203;
  resized.columns = 100;
  resized.rows = 40;
  resized.lines = std::vector<std::string>(40);
  resized.lines[0] = "Starting app";
  resized.lines[1] = "ready> hello";
  resized.lines[2] = "Hi, hello!";
  resized.lines[3] = "ready> ";
  resized.cursorX = 7;
  resized.cursorY = 3;
  resized.activeBuffer = ActiveBuffer::ALTERNATE;
  resized.serializedState = "rows=40;cols=100;cursor=7,3;alt";
  c.renderedFrames = {first, resized};

  InteractionEvent query;
  query.sequence = 0;
  query.scheduledAtMs = 30;
  query.dispatchedAtMs = 31;
  query.type = InteractionType::INPUT;
  query.data = "\x1b[2;1R";
  query.outcome = InteractionOutcome::DISPATCHED;
  query.automatic = true;
  InteractionEvent input;
  input.sequence = 1;
  input.scheduledAtMs = 100;
  input.dispatchedAtMs = 101;
  input.data = "hello\r";
  InteractionEvent resize;
  resize.sequence = 2;
  resize.scheduledAtMs = 200;
  resize.dispatchedAtMs = 203;
  resize.type = InteractionType::RESIZE;
  resize.data = "100x40";
  c.interactionEvents = {query, input, resize};

  c.exit.code = 0;
  c.exit.signal = std::nullopt;
  c.exit.reason = ExitReason::EXITED;
  c.settlement.state = SettlementState::QUIESCED;
  c.settlement.elapsedMs = 10;
  c.settlement.cleanupOutcome = CleanupOutcome::NOT_REQUIRED;

  c.processSamples = {{0, 1, 2, "/usr/bin/python3 app.py --greet", 1, 1},
                      {50, 3, 1, "codex --version", 1, 1}};

  FileState root = fileState("root_0:.", FileType::DIRECTORY, 16877, 4096);
  FileState log = fileState("root_0:log.txt", FileType::FILE, 33188, 6, std::string(64, 'a'));
  FileState link = fileState("root_0:latest", FileType::SYMLINK, 41471, 7, std::nullopt, "log.txt");
  FileEffect created{"root_0:log.txt", FileStatus::CREATED, std::nullopt, log};
  FileEffect linked{"root_0:latest", FileStatus::CREATED, std::nullopt, link};
  FileEffect unchanged{"root_0:.", FileStatus::UNCHANGED, root, root};
  c.filesystemCheckpoints = {{"before", 0, {root}, {}, false},
                             {"ready", 41, {root, log}, {unchanged, created}, false},
                             {"after_settlement", 160, {root, link, log}, {linked}, false}};

  ShimEvent shim;
  shim.sequence = 0;
  shim.atMs = 52;
  shim.command = "codex";
  shim.routeIndex = 0;
  shim.arguments = {"--version"};
  shim.workingDirectory = "<working-directory>";
  shim.outcome = ShimOutcome::MATCHED;
  c.shimEvents = {shim};

  ProtocolEvent request;
  request.sequence = 0;
  request.atMs = 60;
  request.protocol = ProtocolKind::HTTP;
  request.direction = ProtocolDirection::REQUEST;
  request.method = "GET";
  request.path = "/v1/status";
  request.data = "";
  request.outcome = ProtocolOutcome::MATCHED;
  ProtocolEvent response = request;
  response.sequence = 1;
  response.direction = ProtocolDirection::RESPONSE;
  response.data = "{\"ok\":true}";
  c.protocolEvents = {request, response};

  c.filesBefore = {root};
  c.filesAfter = {root, link, log};
  c.filesystemEffects = {unchanged, linked, created};  // sorted by path (UTF-16)
  c.truncated = false;
  c.limitations = {
      "The filesystem is observed through before and after snapshots, not syscall tracing.",
      "The harness leaves external networking unisolated."};
  c.residualUnknowns = {
      {ResidualScope::NETWORK, "This adapter does not isolate external networking."}};
  commitAll(c);
  return c;
}

}  // namespace rea::evidence::testing
