#include "helpers/shim/shim-plan.h"

#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include "evidence/json.h"
#include "helpers/common/capnp-bytes.h"

namespace rea::helper {
namespace {

using evidence::Json;

std::string outputStream(schema::CommandShim::Output::Stream stream, const std::string& path) {
  switch (stream) {
    case schema::CommandShim::Output::Stream::STDOUT:
      return "stdout";
    case schema::CommandShim::Output::Stream::STDERR:
      return "stderr";
  }
  KJ_FAIL_REQUIRE("shim plan: unknown output stream", path, uint16_t(stream));
}

std::string signalName(schema::CommandShim::Signal signal, const std::string& path) {
  switch (signal) {
    case schema::CommandShim::Signal::INTERRUPT:
      return "SIGINT";
    case schema::CommandShim::Signal::TERMINATE:
      return "SIGTERM";
    case schema::CommandShim::Signal::KILL:
      return "SIGKILL";
  }
  KJ_FAIL_REQUIRE("shim plan: unknown signal", path, uint16_t(signal));
}

ShimTermination readTermination(schema::CommandShim::Route::Termination::Reader termination,
                                const std::string& path) {
  ShimTermination result;
  switch (termination.which()) {
    case schema::CommandShim::Route::Termination::EXIT:
      result.type = ShimTermination::Type::EXIT;
      result.code = termination.getExit();
      return result;
    case schema::CommandShim::Route::Termination::SIGNAL:
      result.type = ShimTermination::Type::SIGNAL;
      result.signal = signalName(termination.getSignal(), path + "/signal");
      return result;
  }
  KJ_FAIL_REQUIRE("shim plan: unknown termination type", path, uint16_t(termination.which()));
}

ShimRoute readRoute(schema::CommandShim::Route::Reader value, const std::string& path) {
  ShimRoute route;
  for (auto argument : value.getArguments())
    route.arguments.push_back(textOf(argument));
  auto outputs = value.getOutputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string at = path + "/outputs/" + std::to_string(i);
    route.outputs.push_back({outputs[i].getAtMs(),
                             outputStream(outputs[i].getStream(), at + "/stream"),
                             textOf(outputs[i].getData())});
  }
  route.termination = readTermination(value.getTermination(), path + "/termination");
  route.maxCalls = value.getMaxCalls();
  return route;
}

}  // namespace

ShimPlan readShimPlan(schema::ShimPlan::Reader value) {
  ShimPlan plan;
  auto shims = value.getShims();
  for (size_t i = 0; i < shims.size(); ++i) {
    std::string path = "/command_shims/" + std::to_string(i);
    Shim shim;
    shim.name = textOf(shims[i].getName());
    // The name becomes a file name in the shims directory: nothing but a plain one.
    KJ_REQUIRE(!shim.name.empty() && shim.name.size() <= 128 &&
                   shim.name.find_first_of(std::string_view("/\0", 2)) == std::string::npos &&
                   shim.name != "." && shim.name != "..",
               "shim plan: not a plain file name", path + "/name");
    auto routes = shims[i].getRoutes();
    for (size_t r = 0; r < routes.size(); ++r) {
      shim.routes.push_back(readRoute(routes[r], path + "/routes/" + std::to_string(r)));
    }
    plan.shims.push_back(std::move(shim));
  }
  return plan;
}

std::string routeResponseJson(const ShimRoute& route) {
  Json outputs = Json::array();
  for (const ShimOutput& output : route.outputs) {
    outputs.push_back({{"at_ms", output.atMs}, {"stream", output.stream}, {"data", output.data}});
  }
  Json termination = Json::object();
  if (route.termination.type == ShimTermination::Type::EXIT) {
    termination["type"] = "exit";
    termination["code"] = route.termination.code;
  } else {
    termination["type"] = "signal";
    termination["signal"] = route.termination.signal;
  }
  Json body = {{"arguments", route.arguments},
               {"outputs", std::move(outputs)},
               {"termination", std::move(termination)},
               {"max_calls", route.maxCalls}};
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rea::helper
