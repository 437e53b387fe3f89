#include "helpers/replay/replay-plan.h"

#include <kj/debug.h>

#include <nlohmann/json.hpp>

#include "evidence/issue.h"

namespace rea::helper {
namespace {

using evidence::childPath;
using evidence::indexPath;
using evidence::Json;

const Json* member(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string stringAt(const Json& value, const std::string& path) {
  KJ_REQUIRE(value.is_string(), "replay plan: expected a string", path);
  return value.get<std::string>();
}

uint64_t unsignedAt(const Json& value, const std::string& path) {
  KJ_REQUIRE(value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0),
             "replay plan: expected a non-negative integer", path);
  return value.get<uint64_t>();
}

bool boolAt(const Json& value, const std::string& path) {
  KJ_REQUIRE(value.is_boolean(), "replay plan: expected a boolean", path);
  return value.get<bool>();
}

bool isTokenChar(char c) {
  // RFC 9110 tchar: what kj-http accepts in a header name.
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::vector<std::pair<std::string, std::string>> headersAt(const Json* value,
                                                           const std::string& path,
                                                           bool mustBeSendable) {
  std::vector<std::pair<std::string, std::string>> result;
  if (value == nullptr) return result;
  KJ_REQUIRE(value->is_object(), "replay plan: expected an object", path);
  for (auto& [name, headerValue] : value->items()) {
    std::string at = childPath(path, name);
    std::string text = stringAt(headerValue, at);
    if (mustBeSendable) {
      bool nameOk = !name.empty();
      for (char c : name)
        nameOk = nameOk && isTokenChar(c);
      KJ_REQUIRE(nameOk, "replay plan: a response header name must be an HTTP token", at);
      KJ_REQUIRE(text.find_first_of(std::string_view("\0\r\n", 3)) == std::string::npos,
                 "replay plan: a response header value cannot contain NUL, CR or LF", at);
    }
    result.emplace_back(name, std::move(text));
  }
  return result;
}

HttpRoute routeAt(const Json& value, const std::string& path) {
  KJ_REQUIRE(value.is_object(), "replay plan: expected an object", path);
  HttpRoute route;
  auto required = [&](const char* key) -> const Json& {
    const Json* v = member(value, key);
    KJ_REQUIRE(v != nullptr, "replay plan: missing required member", childPath(path, key));
    return *v;
  };
  route.method = stringAt(required("method"), childPath(path, "method"));
  route.path = stringAt(required("path"), childPath(path, "path"));
  route.status = static_cast<uint32_t>(unsignedAt(required("status"), childPath(path, "status")));
  KJ_REQUIRE(route.status >= 100 && route.status <= 599, "replay plan: status out of range",
             childPath(path, "status"));
  route.body = stringAt(required("body"), childPath(path, "body"));
  route.requestHeaders =
      headersAt(member(value, "request_headers"), childPath(path, "request_headers"), false);
  if (const Json* v = member(value, "request_body")) {
    route.requestBody = stringAt(*v, childPath(path, "request_body"));
  }
  route.responseHeaders =
      headersAt(member(value, "response_headers"), childPath(path, "response_headers"), true);
  if (const Json* v = member(value, "delay_ms")) {
    route.delayMs = static_cast<uint32_t>(unsignedAt(*v, childPath(path, "delay_ms")));
  }
  if (const Json* v = member(value, "disconnect")) {
    route.disconnect = boolAt(*v, childPath(path, "disconnect"));
  }
  if (const Json* v = member(value, "max_calls")) {
    route.maxCalls = static_cast<uint32_t>(unsignedAt(*v, childPath(path, "max_calls")));
  }
  return route;
}

WebSocketScript scriptAt(const Json& value, const std::string& path) {
  KJ_REQUIRE(value.is_object(), "replay plan: expected an object", path);
  WebSocketScript script;
  const Json* messages = member(value, "messages");
  std::string messagesPath = childPath(path, "messages");
  KJ_REQUIRE(messages != nullptr && messages->is_array(), "replay plan: expected an array",
             messagesPath);
  for (size_t i = 0; i < messages->size(); ++i) {
    const Json& m = (*messages)[i];
    std::string at = indexPath(messagesPath, i);
    KJ_REQUIRE(m.is_object(), "replay plan: expected an object", at);
    const Json* data = member(m, "data");
    KJ_REQUIRE(data != nullptr, "replay plan: missing required member", childPath(at, "data"));
    WebSocketMessage message{stringAt(*data, childPath(at, "data")), 0};
    if (const Json* delay = member(m, "delay_ms")) {
      message.delayMs = static_cast<uint32_t>(unsignedAt(*delay, childPath(at, "delay_ms")));
    }
    script.messages.push_back(std::move(message));
  }
  if (const Json* v = member(value, "disconnect_after")) {
    script.disconnectAfter = boolAt(*v, childPath(path, "disconnect_after"));
  }
  return script;
}

const Json* arrayMember(const Json& object, const char* key) {
  const Json* v = member(object, key);
  KJ_REQUIRE(v == nullptr || v->is_array(), "replay plan: expected an array", key);
  return v;
}

}  // namespace

ReplayPlan parseReplayPlan(const Json& replay) {
  KJ_REQUIRE(replay.is_object(), "replay plan: expected an object");
  ReplayPlan plan;
  if (const Json* http = arrayMember(replay, "http")) {
    for (size_t i = 0; i < http->size(); ++i) {
      plan.http.push_back(routeAt((*http)[i], indexPath("http", i)));
    }
  }
  if (const Json* messages = arrayMember(replay, "websocket_messages")) {
    for (size_t i = 0; i < messages->size(); ++i) {
      plan.websocketMessages.push_back(
          stringAt((*messages)[i], indexPath("websocket_messages", i)));
    }
  }
  if (const Json* connections = arrayMember(replay, "websocket_connections")) {
    for (size_t i = 0; i < connections->size(); ++i) {
      plan.websocketConnections.push_back(
          scriptAt((*connections)[i], indexPath("websocket_connections", i)));
    }
  }
  return plan;
}

ReplayLimits parseReplayLimits(const Json& limits) {
  KJ_REQUIRE(limits.is_object(), "replay limits: expected an object");
  ReplayLimits result;
  if (const Json* v = member(limits, "protocol_events")) {
    result.protocolEvents = static_cast<uint32_t>(unsignedAt(*v, "protocol_events"));
  }
  if (const Json* v = member(limits, "protocol_body_bytes")) {
    result.protocolBodyBytes = unsignedAt(*v, "protocol_body_bytes");
  }
  if (const Json* v = member(limits, "connections")) {
    result.connections = static_cast<uint32_t>(unsignedAt(*v, "connections"));
  }
  KJ_REQUIRE(result.protocolEvents >= 1 && result.connections >= 1 && result.protocolBodyBytes >= 1,
             "replay limits: protocol_events, protocol_body_bytes and connections must be >= 1");
  return result;
}

}  // namespace rea::helper
