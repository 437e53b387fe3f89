#pragma once
// Settlement after the root exits (SPEC B §6.7.2, A8). Each observation lists the scope's live
// members and checks each one's run token; a member that vanished or turned zombie meanwhile is
// gone, not a failure (B §12, 2.5.0); a member whose token is missing, different or unreadable
// makes the result `unverifiable` at once (and is named in it).
//   - exact (a cgroup scope): `quiesced` as soon as the group is empty — checked at once, then
//     whenever cgroup.events changes and at least every 50 ms (no two-empty rule, no fixed wait);
//   - sampled (a group scope): every 50 ms; all groups empty on two consecutive observations ->
//     `quiesced`.
// Past `settleMs` with members alive: `alive_at_deadline`. `elapsedMs` is raw monotonic time.
// Runs on the caller's kj event loop (timer + an optional "cgroup changed" promise factory).
//
// Errors: a scope that cannot be listed ends the observation as `unverifiable` with a problem
// sentence; the promise itself only rejects on bugs.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <kj/async.h>
#include <kj/timer.h>

#include "helpers/common/system/capture-scope.h"

namespace rea::helper {

struct Settlement {
  enum class State { QUIESCED, ALIVE_AT_DEADLINE, UNVERIFIABLE };
  State state;
  int64_t elapsedMs;
  std::string problem;  // UNVERIFIABLE: B §6.7.1's sentence for the first failure
  std::vector<ProcessFinding> unverified;  // members whose ownership could not be proven
};

const char* settlementStateName(Settlement::State state);
// "quiesced", "alive_at_deadline", "unverifiable" (B §4.3).

kj::Promise<Settlement> settle(kj::Timer& timer, CaptureScope& scope, std::string runToken,
                               pid_t rootPid, uint64_t settleMs,
                               std::function<kj::Promise<void>()> whenCgroupChanges = nullptr);
// `scope` must outlive the promise. `whenCgroupChanges` (exact mode) returns a promise that
// resolves when cgroup.events may have changed; without it the 50 ms tick is the only wake-up.

std::string ownershipProblem(Ownership ownership);
// B §6.7.1's failure sentence for a member that is not owned: "group contains an unowned or
// PID-reused process" (token missing or different) or "ownership could not be revalidated".

}  // namespace rea::helper
