#pragma once
// ReplayPlan: what the loopback replay server answers (SPEC B §3.8), read from the typed plan the
// supervisor sends (schema/replay-plan.capnp), plus the three limits that bound what it records
// (B §3.6). The supervisor built the plan from a validated scenario, so the reader here only
// checks what the server itself depends on: a status it can send, response header names and
// values kj-http can send at all, and union values it knows.
//
// Errors: readReplayPlan() throws kj::Exception (FAILED) naming the plan path of the first value
// the server cannot send; it never returns a partial plan.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "evidence/limits.h"
#include "schema/replay-plan.capnp.h"

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
  // events recorded before the recorder truncates
  uint32_t protocolEvents = uint32_t(evidence::limit::PROTOCOL_EVENTS.defaultValue);
  // request body / WebSocket frame payload cap
  uint64_t protocolBodyBytes = uint64_t(evidence::limit::PROTOCOL_BODY_BYTES.defaultValue);
  // WebSocket connections served (HTTP is not limited)
  uint32_t connections = uint32_t(evidence::limit::CONNECTIONS.defaultValue);
};

ReplayPlan readReplayPlan(schema::ReplayPlan::Reader plan);
// The typed plan a ReplayConfig carries (built by helpers/common/plan-builder.h).

void checkReplayLimits(const ReplayLimits& limits);
// Throws FAILED naming the first limit outside its range (evidence/limits.h).

}  // namespace rea::helper
