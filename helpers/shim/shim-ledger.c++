#include "helpers/shim/shim-ledger.h"

#include <kj/debug.h>

namespace rea::helper {

const char* shimOutcomeName(ShimOutcome outcome) {
  switch (outcome) {
    case ShimOutcome::MATCHED:
      return "matched";
    case ShimOutcome::UNMATCHED:
      return "unmatched";
    case ShimOutcome::EXHAUSTED:
      return "exhausted";
  }
  KJ_UNREACHABLE;
}

ShimLedger::ShimLedger(ShimPlan plan, uint32_t protocolEventLimit)
    : shimPlan(std::move(plan)), limit(protocolEventLimit) {
  for (const Shim& shim : shimPlan.shims) {
    std::vector<std::string> jsons;
    for (const ShimRoute& route : shim.routes)
      jsons.push_back(routeResponseJson(route));
    routeJsons.push_back(std::move(jsons));
    counters.emplace_back(shim.routes.size(), 0);
  }
}

ShimAnswer ShimLedger::invoke(ShimInvocation invocation, uint64_t atNs) {
  ShimAnswer answer{ShimOutcome::UNMATCHED, std::nullopt, {}};
  for (size_t s = 0; s < shimPlan.shims.size(); ++s) {
    const Shim& shim = shimPlan.shims[s];
    if (shim.name != invocation.command) continue;
    // Only the first shim of that name is consulted (names are unique after validation).
    for (size_t r = 0; r < shim.routes.size(); ++r) {
      if (shim.routes[r].arguments != invocation.arguments) continue;
      answer.routeIndex = static_cast<uint32_t>(r);
      if (counters[s][r] >= shim.routes[r].maxCalls) {
        answer.outcome = ShimOutcome::EXHAUSTED;
      } else {
        answer.outcome = ShimOutcome::MATCHED;
        ++counters[s][r];
        answer.routeJson = routeJsons[s][r];
      }
      break;
    }
    break;
  }

  if (recorded.size() >= limit) {
    isTruncated = true;
    ++dropped;
  } else {
    recorded.push_back({static_cast<uint32_t>(recorded.size()), atNs, std::move(invocation.command),
                        answer.routeIndex, std::move(invocation.arguments),
                        std::move(invocation.workingDirectory), answer.outcome});
    if (recordedObserver) recordedObserver(recorded.back());
  }
  return answer;
}

uint32_t ShimLedger::callCount(size_t shimIndex, size_t routeIndex) const {
  KJ_REQUIRE(shimIndex < counters.size() && routeIndex < counters[shimIndex].size(),
             "no such route", shimIndex, routeIndex);
  return counters[shimIndex][routeIndex];
}

}  // namespace rea::helper
