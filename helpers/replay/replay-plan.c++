#include "helpers/replay/replay-plan.h"

#include <string_view>

#include <kj/debug.h>

#include "evidence/issue.h"
#include "helpers/common/capnp-bytes.h"

namespace rea::helper {
namespace {

using evidence::childPath;
using evidence::indexPath;

bool isTokenChar(char c) {
  // RFC 9110 tchar: what kj-http accepts in a header name.
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::vector<std::pair<std::string, std::string>> readHeaders(
    capnp::List<schema::ReplayPlan::Header>::Reader headers, const std::string& path,
    bool mustBeSendable) {
  std::vector<std::pair<std::string, std::string>> result;
  for (auto header : headers) {
    std::string name = textOf(header.getName());
    std::string text = textOf(header.getValue());
    std::string at = childPath(path, name);
    if (mustBeSendable) {
      bool nameOk = !name.empty();
      for (char c : name)
        nameOk = nameOk && isTokenChar(c);
      KJ_REQUIRE(nameOk, "replay plan: a response header name must be an HTTP token", at);
      KJ_REQUIRE(text.find_first_of(std::string_view("\0\r\n", 3)) == std::string::npos,
                 "replay plan: a response header value cannot contain NUL, CR or LF", at);
    }
    result.emplace_back(std::move(name), std::move(text));
  }
  return result;
}

HttpRoute readRoute(schema::ReplayPlan::HttpRoute::Reader value, const std::string& path) {
  HttpRoute route;
  route.method = textOf(value.getMethod());
  route.path = textOf(value.getPath());
  route.status = value.getStatus();
  KJ_REQUIRE(route.status >= 100 && route.status <= 599, "replay plan: status out of range",
             childPath(path, "status"));
  route.body = textOf(value.getBody());
  route.requestHeaders =
      readHeaders(value.getRequestHeaders(), childPath(path, "request_headers"), false);
  auto requestBody = value.getRequestBody();
  switch (requestBody.which()) {
    case schema::ReplayPlan::HttpRoute::RequestBody::ANY:
      break;
    case schema::ReplayPlan::HttpRoute::RequestBody::EQUALS:
      route.requestBody = textOf(requestBody.getEquals());
      break;
    default:
      KJ_FAIL_REQUIRE("replay plan: unknown request body match", childPath(path, "request_body"));
  }
  route.responseHeaders =
      readHeaders(value.getResponseHeaders(), childPath(path, "response_headers"), true);
  route.delayMs = value.getDelayMs();
  route.disconnect = value.getDisconnect();
  route.maxCalls = value.getMaxCalls();
  return route;
}

WebSocketScript readScript(schema::ReplayPlan::WebSocketConnection::Reader value) {
  WebSocketScript script;
  for (auto message : value.getMessages())
    script.messages.push_back({textOf(message.getData()), message.getDelayMs()});
  script.disconnectAfter = value.getDisconnectAfter();
  return script;
}

}  // namespace

ReplayPlan readReplayPlan(schema::ReplayPlan::Reader value) {
  ReplayPlan plan;
  auto http = value.getHttp();
  for (size_t i = 0; i < http.size(); ++i)
    plan.http.push_back(readRoute(http[i], indexPath("http", i)));
  for (auto message : value.getWebsocketMessages())
    plan.websocketMessages.push_back(textOf(message));
  for (auto connection : value.getWebsocketConnections())
    plan.websocketConnections.push_back(readScript(connection));
  return plan;
}

void checkReplayLimits(const ReplayLimits& limits) {
  KJ_REQUIRE(evidence::limit::PROTOCOL_EVENTS.contains(limits.protocolEvents),
             "protocolEvents out of range");
  KJ_REQUIRE(evidence::limit::PROTOCOL_BODY_BYTES.contains(limits.protocolBodyBytes),
             "protocolBodyBytes out of range");
  KJ_REQUIRE(evidence::limit::CONNECTIONS.contains(limits.connections), "connections out of range");
}

}  // namespace rea::helper
