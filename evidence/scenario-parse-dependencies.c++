// ScenarioParser (scenario-parser.h), the dependencies a scenario declares: command shims with
// their routes and outputs, and loopback replay (HTTP routes, WebSocket connections).

#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "evidence/scenario-parser.h"

namespace rea::evidence {

void ScenarioParser::commandShim(const Json& value, const std::string& path, size_t index,
                                 std::vector<CommandShim>& out) {
  if (!r.object(value, path, {"name", "routes"})) return;
  size_t before = r.issueCount();
  CommandShim shim;
  if (const Json* name = r.require(value, path, "name")) {
    if (checkedName(
            *name, childPath(path, "name"), 128, "._-",
            "must start with a letter or digit and contain only letters, digits, ., _ and -",
            shim.name)) {
      facts.shimNames.emplace_back(index, shim.name);
    }
  }
  if (const Json* routes = r.require(value, path, "routes")) {
    r.array(*routes, childPath(path, "routes"), 1, 100,
            [&](const Json& element, const std::string& elementPath, size_t) {
              route(element, elementPath, shim.routes);
            });
  }
  if (r.issueCount() == before) out.push_back(std::move(shim));
}

void ScenarioParser::route(const Json& value, const std::string& path, std::vector<Route>& out) {
  if (!r.object(value, path, {"arguments", "outputs", "termination", "max_calls"})) return;
  size_t before = r.issueCount();
  Route route;
  if (const Json* arguments = r.require(value, path, "arguments")) {
    r.strings(*arguments, childPath(path, "arguments"), 256, UNLIMITED, route.arguments);
  }
  if (const Json* outputs = StrictReader::find(value, "outputs")) {
    r.array(*outputs, childPath(path, "outputs"), 0, 1000,
            [&](const Json& element, const std::string& elementPath, size_t) {
              shimOutput(element, elementPath, route.outputs);
            });
  }
  if (const Json* termination = r.require(value, path, "termination")) {
    this->termination(*termination, childPath(path, "termination"), route.termination);
  }
  optionalInteger(value, path, "max_calls", 1, 100, route.maxCalls);
  if (r.issueCount() == before) out.push_back(std::move(route));
}

void ScenarioParser::shimOutput(const Json& value, const std::string& path,
                                std::vector<ShimOutput>& out) {
  if (!r.object(value, path, {"at_ms", "stream", "data"})) return;
  size_t before = r.issueCount();
  ShimOutput output;
  requiredInteger(value, path, "at_ms", 0, 300000, output.atMs);
  if (const Json* stream = r.require(value, path, "stream")) {
    size_t index;
    if (r.oneOf(*stream, childPath(path, "stream"), {"stdout", "stderr"}, index)) {
      output.stream = index == 0 ? OutputStream::STDOUT : OutputStream::STDERR;
    }
  }
  requiredString(value, path, "data", MAX_BODY_UNITS, output.data);
  if (r.issueCount() == before) out.push_back(std::move(output));
}

Replay ScenarioParser::replay(const Json& value, const std::string& path) {
  Replay replay;
  if (!r.object(value, path, {"http", "websocket_messages", "websocket_connections"})) {
    return replay;
  }
  if (const Json* http = StrictReader::find(value, "http")) {
    r.array(*http, childPath(path, "http"), 0, 100,
            [&](const Json& element, const std::string& elementPath, size_t) {
              httpRoute(element, elementPath, replay.http);
            });
  }
  if (const Json* messages = StrictReader::find(value, "websocket_messages")) {
    r.strings(*messages, childPath(path, "websocket_messages"), 100, MAX_BODY_UNITS,
              replay.websocketMessages);
  }
  if (const Json* connections = StrictReader::find(value, "websocket_connections")) {
    r.array(*connections, childPath(path, "websocket_connections"), 0, 100,
            [&](const Json& element, const std::string& elementPath, size_t) {
              webSocketConnection(element, elementPath, replay.websocketConnections);
            });
  }
  return replay;
}

void ScenarioParser::httpRoute(const Json& value, const std::string& path,
                               std::vector<HttpRoute>& out) {
  if (!r.object(value, path,
                {"method", "path", "status", "body", "request_headers", "request_body",
                 "response_headers", "delay_ms", "disconnect", "max_calls"})) {
    return;
  }
  size_t before = r.issueCount();
  HttpRoute route;
  requiredString(value, path, "method", 16, route.method);
  if (const Json* target = r.require(value, path, "path")) {
    r.absolutePath(*target, childPath(path, "path"), route.path);
  }
  requiredInteger(value, path, "status", 100, 599, route.status);
  requiredString(value, path, "body", MAX_BODY_UNITS, route.body);
  if (const Json* headers = StrictReader::find(value, "request_headers")) {
    this->headers(*headers, childPath(path, "request_headers"), route.requestHeaders);
  }
  if (const Json* body = StrictReader::find(value, "request_body")) {
    std::string text;
    if (r.string(*body, childPath(path, "request_body"), MAX_BODY_UNITS, text)) {
      route.requestBody = std::move(text);
    }
  }
  if (const Json* headers = StrictReader::find(value, "response_headers")) {
    this->headers(*headers, childPath(path, "response_headers"), route.responseHeaders, true);
  }
  optionalInteger(value, path, "delay_ms", 0, 30000, route.delayMs);
  optionalBoolean(value, path, "disconnect", route.disconnect);
  optionalInteger(value, path, "max_calls", 1, 100, route.maxCalls);
  if (r.issueCount() == before) out.push_back(std::move(route));
}

void ScenarioParser::webSocketConnection(const Json& value, const std::string& path,
                                         std::vector<WebSocketConnection>& out) {
  if (!r.object(value, path, {"messages", "disconnect_after"})) return;
  size_t before = r.issueCount();
  WebSocketConnection connection;
  if (const Json* messages = r.require(value, path, "messages")) {
    r.array(*messages, childPath(path, "messages"), 0, 100,
            [&](const Json& element, const std::string& elementPath, size_t) {
              if (!r.object(element, elementPath, {"data", "delay_ms"})) return;
              size_t messageBefore = r.issueCount();
              WebSocketMessage message;
              requiredString(element, elementPath, "data", MAX_BODY_UNITS, message.data);
              optionalInteger(element, elementPath, "delay_ms", 0, 30000, message.delayMs);
              if (r.issueCount() == messageBefore) connection.messages.push_back(message);
            });
  }
  optionalBoolean(value, path, "disconnect_after", connection.disconnectAfter);
  if (r.issueCount() == before) out.push_back(std::move(connection));
}

}  // namespace rea::evidence
