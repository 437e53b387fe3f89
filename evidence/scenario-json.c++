// toJson for Scenario and its parts, and the names of its enumerations (declared in
// scenario.h). Member order follows the tables of SPEC B §3 (commitments do not depend on it:
// they hash canonical JSON, which sorts keys).

#include "evidence/scenario.h"

#include <csignal>
#include <nlohmann/json.hpp>

namespace rea::evidence {

const char* signalName(TargetSignal signal) {
  switch (signal) {
    case TargetSignal::INTERRUPT:
      return "SIGINT";
    case TargetSignal::TERMINATE:
      return "SIGTERM";
    case TargetSignal::KILL:
      return "SIGKILL";
  }
  return "SIGKILL";  // unreachable: the switch covers every enumerant
}

int signalNumber(TargetSignal signal) {
  switch (signal) {
    case TargetSignal::INTERRUPT:
      return SIGINT;
    case TargetSignal::TERMINATE:
      return SIGTERM;
    case TargetSignal::KILL:
      return SIGKILL;
  }
  return SIGKILL;
}

namespace {

// Overload set for std::visit.
template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

Json namedValues(const std::vector<NamedValue>& values) {
  Json object = Json::object();
  for (const auto& entry : values)
    object[entry.name] = entry.value;
  return object;
}

Json strings(const std::vector<std::string>& values) {
  Json array = Json::array();
  for (const auto& value : values)
    array.push_back(value);
  return array;
}

Json toJson(const Trigger& trigger) {
  return std::visit(Overloaded{
                        [](const TimeTrigger& t) {
                          return Json{{"type", "time"}, {"at_ms", t.atMs}};
                        },
                        [](const TerminalLiteralTrigger& t) {
                          return Json{{"type", "terminal_literal"},
                                      {"value", t.value},
                                      {"occurrence", t.occurrence}};
                        },
                        [](const RootExitTrigger&) {
                          return Json{{"type", "root_exit"}};
                        },
                        [](const SettledTrigger&) {
                          return Json{{"type", "settled"}};
                        },
                    },
                    trigger.kind);
}

Json toJson(const Termination& termination) {
  return std::visit(Overloaded{
                        [](const ExitTermination& e) {
                          return Json{{"type", "exit"}, {"code", e.code}};
                        },
                        [](const SignalTermination& s) {
                          return Json{{"type", "signal"}, {"signal", signalName(s.signal)}};
                        },
                    },
                    termination.kind);
}

Json toJson(const Route& route) {
  Json outputs = Json::array();
  for (const auto& output : route.outputs) {
    outputs.push_back(Json{{"at_ms", output.atMs},
                           {"stream", output.stream == OutputStream::STDOUT ? "stdout" : "stderr"},
                           {"data", output.data}});
  }
  Json json = Json::object();
  json["arguments"] = strings(route.arguments);
  json["outputs"] = std::move(outputs);
  json["termination"] = toJson(route.termination);
  json["max_calls"] = route.maxCalls;
  return json;
}

Json toJson(const HttpRoute& route) {
  Json json = Json::object();
  json["method"] = route.method;
  json["path"] = route.path;
  json["status"] = route.status;
  json["body"] = route.body;
  json["request_headers"] = namedValues(route.requestHeaders);
  if (route.requestBody) json["request_body"] = *route.requestBody;
  json["response_headers"] = namedValues(route.responseHeaders);
  json["delay_ms"] = route.delayMs;
  json["disconnect"] = route.disconnect;
  json["max_calls"] = route.maxCalls;
  return json;
}

Json toJson(const WebSocketConnection& connection) {
  Json messages = Json::array();
  for (const auto& message : connection.messages) {
    messages.push_back(Json{{"data", message.data}, {"delay_ms", message.delayMs}});
  }
  Json json = Json::object();
  json["messages"] = std::move(messages);
  json["disconnect_after"] = connection.disconnectAfter;
  return json;
}

}  // namespace

Json toJson(const Event& event) {
  Json json = Json::object();
  json["at_ms"] = event.atMs;
  std::visit(Overloaded{
                 [&](const InputAction& input) {
                   json["type"] = "input";
                   json["data"] = input.data;
                   json["sensitive"] = input.sensitive;
                 },
                 [&](const ResizeAction& resize) {
                   json["type"] = "resize";
                   json["columns"] = resize.columns;
                   json["rows"] = resize.rows;
                 },
                 [&](const SignalAction& signal) {
                   json["type"] = "signal";
                   json["signal"] = signalName(signal.signal);
                 },
             },
             event.action);
  if (event.when) {
    // Present only on events that wait, so a time-only event keeps its B §3.2 form.
    json["when"] = toJson(*event.when);
    json["delay_ms"] = event.delayMs;
    if (event.timeoutMs) json["timeout_ms"] = *event.timeoutMs;
    json["on_timeout"] = event.onTimeout == OnTimeout::STOP ? "stop" : "continue";
  }
  return json;
}

const char* conditionTypeName(const Condition& condition) {
  static const char* const NAMES[] = {"output_literal", "output_regex", "screen_literal",
                                      "checkpoint", "root_exit"};
  return NAMES[condition.kind.index()];
}

Json toJson(const Condition& condition) {
  Json json = Json::object();
  json["type"] = conditionTypeName(condition);
  std::visit(Overloaded{
                 [&](const OutputLiteralCondition& c) {
                   json["value"] = c.value;
                   json["occurrence"] = c.occurrence;
                 },
                 [&](const OutputRegexCondition& c) {
                   json["pattern"] = c.pattern;
                   json["occurrence"] = c.occurrence;
                 },
                 [&](const ScreenLiteralCondition& c) {
                   json["value"] = c.value;
                   if (c.row) json["row"] = *c.row;
                 },
                 [&](const CheckpointCondition& c) { json["name"] = c.name; },
                 [&](const RootExitCondition&) {},
             },
             condition.kind);
  return json;
}

Json toJson(const CheckpointDeclaration& checkpoint) {
  Json json = Json::object();
  json["name"] = checkpoint.name;
  json["trigger"] = toJson(checkpoint.trigger);
  return json;
}

Json toJson(const CommandShim& shim) {
  Json routes = Json::array();
  for (const auto& route : shim.routes)
    routes.push_back(toJson(route));
  Json json = Json::object();
  json["name"] = shim.name;
  json["routes"] = std::move(routes);
  return json;
}

Json toJson(const Limits& limits) {
  Json json = Json::object();
  json["output_bytes"] = limits.outputBytes;
  json["frames"] = limits.frames;
  json["files"] = limits.files;
  json["file_bytes"] = limits.fileBytes;
  json["processes"] = limits.processes;
  json["protocol_events"] = limits.protocolEvents;
  json["protocol_body_bytes"] = limits.protocolBodyBytes;
  json["connections"] = limits.connections;
  json["filesystem_depth"] = limits.filesystemDepth;
  return json;
}

Json toJson(const Normalization& normalization) {
  Json patterns = Json::array();
  for (const auto& p : normalization.patterns) {
    patterns.push_back(Json{{"pattern", p.pattern}, {"replacement", p.replacement}});
  }
  Json json = Json::object();
  json["paths"] = normalization.paths;
  json["pids"] = normalization.pids;
  json["ports"] = normalization.ports;
  json["time_bucket_ms"] = normalization.timeBucketMs;
  json["patterns"] = std::move(patterns);
  return json;
}

Json toJson(const Replay& replay) {
  Json http = Json::array();
  for (const auto& route : replay.http)
    http.push_back(toJson(route));
  Json connections = Json::array();
  for (const auto& connection : replay.websocketConnections) {
    connections.push_back(toJson(connection));
  }
  Json json = Json::object();
  json["http"] = std::move(http);
  json["websocket_messages"] = strings(replay.websocketMessages);
  json["websocket_connections"] = std::move(connections);
  return json;
}

Json toJson(const Scenario& s) {
  Json json = Json::object();
  json["approved"] = true;
  if (s.unknownRegistryApproved) json["unknown_registry_approved"] = true;
  json["executable"] = s.executable;
  json["arguments"] = strings(s.arguments);
  json["working_directory"] = s.workingDirectory;
  json["environment"] = namedValues(s.environment);
  json["inherit_environment"] = strings(s.inheritEnvironment);
  json["secret_aliases"] = strings(s.secretAliases);
  json["network_access"] = s.networkAccess == NetworkAccess::HOST ? "host" : "loopback";
  json["filesystem_roots"] = strings(s.filesystemRoots);
  json["terminal"] = Json{{"columns", s.terminal.columns},
                          {"rows", s.terminal.rows},
                          {"scrollback", s.terminal.scrollback}};
  Json checkpoints = Json::array();
  for (const auto& checkpoint : s.checkpoints)
    checkpoints.push_back(toJson(checkpoint));
  json["checkpoints"] = std::move(checkpoints);
  Json shims = Json::array();
  for (const auto& shim : s.commandShims)
    shims.push_back(toJson(shim));
  json["command_shims"] = std::move(shims);
  Json events = Json::array();
  for (const auto& event : s.events)
    events.push_back(toJson(event));
  json["events"] = std::move(events);
  json["timeout_ms"] = s.timeoutMs;
  json["idle_timeout_ms"] = s.idleTimeoutMs;
  json["settle_ms"] = s.settleMs;
  json["limits"] = toJson(s.limits);
  json["normalization"] = toJson(s.normalization);
  json["replay"] = toJson(s.replay);
  return json;
}

}  // namespace rea::evidence
