#include "helpers/common/plan-builder.h"

#include <kj/debug.h>

namespace rea::helper {
namespace {

kj::StringPtr textOf(const std::string& text) {
  // With its size: a scenario string may hold U+0000, which a C string would end at.
  return kj::StringPtr(text.c_str(), text.size());
}

schema::CommandShim::Signal signalOf(evidence::TargetSignal signal) {
  switch (signal) {
    case evidence::TargetSignal::INTERRUPT:
      return schema::CommandShim::Signal::INTERRUPT;
    case evidence::TargetSignal::TERMINATE:
      return schema::CommandShim::Signal::TERMINATE;
    case evidence::TargetSignal::KILL:
      return schema::CommandShim::Signal::KILL;
  }
  KJ_UNREACHABLE;
}

void buildRoute(const evidence::Route& route, schema::CommandShim::Route::Builder out) {
  auto arguments = out.initArguments(route.arguments.size());
  for (size_t i = 0; i < route.arguments.size(); ++i)
    arguments.set(i, textOf(route.arguments[i]));
  auto outputs = out.initOutputs(route.outputs.size());
  for (size_t i = 0; i < route.outputs.size(); ++i) {
    const evidence::ShimOutput& output = route.outputs[i];
    outputs[i].setAtMs(static_cast<uint32_t>(output.atMs));
    outputs[i].setStream(output.stream == evidence::OutputStream::STDOUT
                             ? schema::CommandShim::Output::Stream::STDOUT
                             : schema::CommandShim::Output::Stream::STDERR);
    outputs[i].setData(textOf(output.data));
  }
  auto termination = out.initTermination();
  if (auto* exit = std::get_if<evidence::ExitTermination>(&route.termination.kind)) {
    termination.setExit(static_cast<uint8_t>(exit->code));
  } else {
    termination.setSignal(
        signalOf(std::get<evidence::SignalTermination>(route.termination.kind).signal));
  }
  out.setMaxCalls(static_cast<uint32_t>(route.maxCalls));
}

void buildHeaders(const std::vector<evidence::NamedValue>& headers,
                  capnp::List<schema::ReplayPlan::Header>::Builder out) {
  for (size_t i = 0; i < headers.size(); ++i) {
    out[i].setName(textOf(headers[i].name));
    out[i].setValue(textOf(headers[i].value));
  }
}

}  // namespace

void buildShimPlan(const std::vector<evidence::CommandShim>& shims,
                   schema::ShimPlan::Builder plan) {
  auto list = plan.initShims(shims.size());
  for (size_t s = 0; s < shims.size(); ++s) {
    list[s].setName(textOf(shims[s].name));
    auto routes = list[s].initRoutes(shims[s].routes.size());
    for (size_t r = 0; r < shims[s].routes.size(); ++r)
      buildRoute(shims[s].routes[r], routes[r]);
  }
}

void buildReplayPlan(const evidence::Replay& replay, schema::ReplayPlan::Builder plan) {
  auto http = plan.initHttp(replay.http.size());
  for (size_t i = 0; i < replay.http.size(); ++i) {
    const evidence::HttpRoute& route = replay.http[i];
    auto out = http[i];
    out.setMethod(textOf(route.method));
    out.setPath(textOf(route.path));
    out.setStatus(static_cast<uint16_t>(route.status));
    out.setBody(textOf(route.body));
    buildHeaders(route.requestHeaders, out.initRequestHeaders(route.requestHeaders.size()));
    if (route.requestBody) {
      out.getRequestBody().setEquals(textOf(*route.requestBody));
    } else {
      out.getRequestBody().setAny();
    }
    buildHeaders(route.responseHeaders, out.initResponseHeaders(route.responseHeaders.size()));
    out.setDelayMs(static_cast<uint32_t>(route.delayMs));
    out.setDisconnect(route.disconnect);
    out.setMaxCalls(static_cast<uint32_t>(route.maxCalls));
  }
  auto messages = plan.initWebsocketMessages(replay.websocketMessages.size());
  for (size_t i = 0; i < replay.websocketMessages.size(); ++i)
    messages.set(i, textOf(replay.websocketMessages[i]));
  auto connections = plan.initWebsocketConnections(replay.websocketConnections.size());
  for (size_t c = 0; c < replay.websocketConnections.size(); ++c) {
    const evidence::WebSocketConnection& connection = replay.websocketConnections[c];
    auto scripted = connections[c].initMessages(connection.messages.size());
    for (size_t m = 0; m < connection.messages.size(); ++m) {
      scripted[m].setData(textOf(connection.messages[m].data));
      scripted[m].setDelayMs(static_cast<uint32_t>(connection.messages[m].delayMs));
    }
    connections[c].setDisconnectAfter(connection.disconnectAfter);
  }
}

}  // namespace rea::helper
