#pragma once
// The shim plan the ledger answers from: the scenario's `command_shims` (SPEC B §3.4) with the
// route defaults applied (`outputs: []`, `max_calls: 1`). It owns, per route, the exact JSON the
// ledger sends a shim client on a match (B §7.2 step 3: "the parsed route, with defaults").
//
// The plan arrives typed (schema/shim-plan.capnp) and already validated (scenario parsing and the
// policy gates run upstream), so this module only converts; it does not re-check the ranges of
// B §3.4. It refuses only what the message's types allow but no plan holds: an unknown enum or
// union value, a shim name that is not a plain file name.
//
// Errors: readShimPlan() throws kj::Exception (FAILED) naming the plan path of the first such
// value: that is a bug or a hostile supervisor, not a user error.

#include <cstdint>
#include <string>
#include <vector>

#include "schema/shim-plan.capnp.h"

namespace rea::helper {

struct ShimOutput {
  uint32_t atMs = 0;   // offset from the previous declared offset is what the client waits
  std::string stream;  // "stdout" | "stderr"
  std::string data;
};

struct ShimTermination {
  enum class Type { EXIT, SIGNAL };
  Type type = Type::EXIT;
  uint32_t code = 0;   // with EXIT: 0-255
  std::string signal;  // with SIGNAL: "SIGINT" | "SIGTERM" | "SIGKILL"
};

struct ShimRoute {
  std::vector<std::string> arguments;  // matched exactly (length, strings, order)
  std::vector<ShimOutput> outputs;
  ShimTermination termination;
  uint32_t maxCalls = 1;
};

struct Shim {
  std::string name;  // 1-128 chars, no '/': also the file name under <temp root>/shims
  std::vector<ShimRoute> routes;
};

struct ShimPlan {
  std::vector<Shim> shims;  // declaration order: the first shim with a name wins
};

ShimPlan readShimPlan(schema::ShimPlan::Reader plan);
// The typed plan a ShimConfig carries (built by helpers/common/plan-builder.h).

std::string routeResponseJson(const ShimRoute& route);
// The body of a 200 answer: `{"arguments":[…],"outputs":[{"at_ms","stream","data"}…],
// "termination":{"type","code"|"signal"},"max_calls"}`, compact. Invalid UTF-8 (impossible in a
// plan that came from JSON) would be replaced by U+FFFD rather than throw.

}  // namespace rea::helper
