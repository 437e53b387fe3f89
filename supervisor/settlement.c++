#include "supervisor/settlement.h"

#include <kj/debug.h>

#include "supervisor/process-group.h"

namespace rea::supervisor {
namespace {

struct SettlementLoop {
  kj::Timer& timer;
  std::vector<pid_t> groups;
  std::string runToken;
  int64_t settleMs;
  kj::TimePoint start;
  int consecutiveEmpty = 0;

  int64_t elapsedMs() { return (timer.now() - start) / kj::MILLISECONDS; }

  kj::Promise<SettlementResult> step() {
    bool allEmpty = true;
    for (pid_t group : groups) {
      auto observation = observeGroup(group, runToken);
      if (observation.state == GroupObservation::State::UNVERIFIABLE) {
        return SettlementResult{SettlementResult::State::UNVERIFIABLE, elapsedMs(),
                                observation.problem};
      }
      if (observation.state == GroupObservation::State::ALIVE) allEmpty = false;
    }
    if (allEmpty) {
      if (++consecutiveEmpty >= 2) {
        return SettlementResult{SettlementResult::State::QUIESCED, elapsedMs(), {}};
      }
    } else {
      consecutiveEmpty = 0;
    }
    if (elapsedMs() >= settleMs) {
      return SettlementResult{SettlementResult::State::ALIVE_AT_DEADLINE, elapsedMs(), {}};
    }
    return timer.afterDelay(50 * kj::MILLISECONDS).then([this]() { return step(); });
  }
};

}  // namespace

kj::Promise<SettlementResult> observeSettlement(kj::Timer& timer, std::vector<pid_t> groups,
                                                std::string runToken, int64_t settleMs) {
  auto loop = kj::heap<SettlementLoop>(
      SettlementLoop{timer, std::move(groups), std::move(runToken), settleMs, timer.now()});
  auto promise = loop->step();
  return promise.attach(kj::mv(loop));
}

const char* settlementStateName(SettlementResult::State state) {
  switch (state) {
    case SettlementResult::State::QUIESCED:
      return "quiesced";
    case SettlementResult::State::ALIVE_AT_DEADLINE:
      return "alive_at_deadline";
    case SettlementResult::State::UNVERIFIABLE:
      return "unverifiable";
  }
  KJ_UNREACHABLE;
}

}  // namespace rea::supervisor
