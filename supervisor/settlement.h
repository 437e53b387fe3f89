#pragma once
// Settlement after the root exits (SPEC B §6.7.2), observed on the capture's process groups
// with the ownership check of process-group.h:
//   every 50 ms observe each group: listing fails or a member is unverifiable -> unverifiable;
//   all empty twice in a row -> quiesced; deadline `settle_ms` passed -> alive_at_deadline.
// This is the sampled-mode rule; the sampler's exact mode (cgroup) replaces it where available.
//
// Errors: the promise rejects only if /proc cannot be listed at all (then the caller reports
// settlement unverifiable).

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <kj/async.h>
#include <kj/timer.h>

namespace rea::supervisor {

struct SettlementResult {
  enum class State { QUIESCED, ALIVE_AT_DEADLINE, UNVERIFIABLE };
  State state;
  int64_t elapsedMs;    // raw wall time of the observation
  std::string problem;  // for UNVERIFIABLE: why (no secrets)
};

kj::Promise<SettlementResult> observeSettlement(kj::Timer& timer, std::vector<pid_t> groups,
                                                std::string runToken, int64_t settleMs);
// `groups` are process-group ids (the root's first). The vector and token are copied.

const char* settlementStateName(SettlementResult::State state);
// "quiesced", "alive_at_deadline", "unverifiable" (SPEC B §4.3).

}  // namespace rea::supervisor
