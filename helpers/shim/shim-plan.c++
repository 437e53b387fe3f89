#include "helpers/shim/shim-plan.h"

#include <cmath>

#include <kj/debug.h>
#include <nlohmann/json.hpp>

namespace rea::helper {
namespace {

using evidence::Json;

const Json& member(const Json& object, const char* key, const std::string& path) {
  KJ_REQUIRE(object.is_object(), "shim plan: not an object", path);
  auto it = object.find(key);
  KJ_REQUIRE(it != object.end(), "shim plan: missing member", path, key);
  return *it;
}

std::string stringValue(const Json& value, const std::string& path) {
  KJ_REQUIRE(value.is_string(), "shim plan: not a string", path);
  return value.get<std::string>();
}

uint32_t uintValue(const Json& value, const std::string& path) {
  // Scenario JSON has no type coercion but `1.0` is the integer 1 (SPEC B0.1).
  KJ_REQUIRE(value.is_number(), "shim plan: not a number", path);
  double number = value.get<double>();
  KJ_REQUIRE(number >= 0 && number <= 4294967295.0 && std::floor(number) == number,
             "shim plan: not a non-negative integer", path);
  return static_cast<uint32_t>(number);
}

ShimTermination parseTermination(const Json& value, const std::string& path) {
  ShimTermination termination;
  std::string type = stringValue(member(value, "type", path), path + "/type");
  if (type == "exit") {
    termination.type = ShimTermination::Type::EXIT;
    termination.code = uintValue(member(value, "code", path), path + "/code");
  } else {
    KJ_REQUIRE(type == "signal", "shim plan: unknown termination type", path, type);
    termination.type = ShimTermination::Type::SIGNAL;
    termination.signal = stringValue(member(value, "signal", path), path + "/signal");
  }
  return termination;
}

ShimRoute parseRoute(const Json& value, const std::string& path) {
  ShimRoute route;
  const Json& arguments = member(value, "arguments", path);
  KJ_REQUIRE(arguments.is_array(), "shim plan: not an array", path + "/arguments");
  for (size_t i = 0; i < arguments.size(); ++i) {
    route.arguments.push_back(stringValue(arguments[i], path + "/arguments/" + std::to_string(i)));
  }
  auto outputs = value.find("outputs");
  if (outputs != value.end()) {
    KJ_REQUIRE(outputs->is_array(), "shim plan: not an array", path + "/outputs");
    for (size_t i = 0; i < outputs->size(); ++i) {
      std::string at = path + "/outputs/" + std::to_string(i);
      const Json& output = (*outputs)[i];
      route.outputs.push_back({uintValue(member(output, "at_ms", at), at + "/at_ms"),
                               stringValue(member(output, "stream", at), at + "/stream"),
                               stringValue(member(output, "data", at), at + "/data")});
    }
  }
  route.termination = parseTermination(member(value, "termination", path), path + "/termination");
  auto maxCalls = value.find("max_calls");
  if (maxCalls != value.end()) route.maxCalls = uintValue(*maxCalls, path + "/max_calls");
  return route;
}

}  // namespace

ShimPlan parseShimPlan(const evidence::Json& commandShims) {
  KJ_REQUIRE(commandShims.is_array(), "shim plan: command_shims is not an array");
  ShimPlan plan;
  for (size_t i = 0; i < commandShims.size(); ++i) {
    std::string path = "/command_shims/" + std::to_string(i);
    const Json& value = commandShims[i];
    Shim shim;
    shim.name = stringValue(member(value, "name", path), path + "/name");
    const Json& routes = member(value, "routes", path);
    KJ_REQUIRE(routes.is_array(), "shim plan: not an array", path + "/routes");
    for (size_t r = 0; r < routes.size(); ++r) {
      shim.routes.push_back(parseRoute(routes[r], path + "/routes/" + std::to_string(r)));
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
