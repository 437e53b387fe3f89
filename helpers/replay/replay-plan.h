#pragma once
// ReplayPlan: what the loopback replay server answers (SPEC B §3.8), parsed from the scenario's
// `replay` object, plus the three limits that bound what it records (B §3.6). The helper gets
// this JSON from the supervisor, which has already validated it against the scenario rules, so
// the parser here only applies defaults and checks what the server itself depends on (types,
// and that response header names and values can be sent at all).
//
// Errors: parseReplayPlan() throws kj::Exception (FAILED) naming the JSON path of the first
// member that has the wrong type or a header kj-http cannot send; it never returns a partial plan.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "evidence/json.h"

namespace rea::helper {

struct HttpRoute {
  std::string method;  // compared case-sensitively with the request method
  std::string path;    // compared with the request path without its query string
  uint32_t status = 200;
  std::string body;                                                  // response body
  std::vector<std::pair<std::string, std::string>> requestHeaders;   // all must match
  std::optional<std::string> requestBody;                            // if set, must equal
  std::vector<std::pair<std::string, std::string>> responseHeaders;  // in declaration order
  uint32_t delayMs = 0;
  bool disconnect = false;
  uint32_t maxCalls = 1;
};

struct WebSocketMessage {
  std::string data;
  uint32_t delayMs = 0;
};

struct WebSocketScript {
  std::vector<WebSocketMessage> messages;
  bool disconnectAfter = false;
};

struct ReplayPlan {
  std::vector<HttpRoute> http;
  std::vector<std::string> websocketMessages;         // legacy: every connection gets these
  std::vector<WebSocketScript> websocketConnections;  // entry n-1 for connection n
};

struct ReplayLimits {
  uint32_t protocolEvents = 10000;       // events recorded before the recorder truncates
  uint64_t protocolBodyBytes = 1000000;  // request body / WebSocket frame payload cap
  uint32_t connections = 100;            // WebSocket connections served (HTTP is not limited)
};

ReplayPlan parseReplayPlan(const evidence::Json& replay);
// `replay` is the scenario's `replay` object (missing members take the B §3.8 defaults).

ReplayLimits parseReplayLimits(const evidence::Json& limits);
// `limits` is the scenario's `limits` object; only the three protocol keys are read.

}  // namespace rea::helper
