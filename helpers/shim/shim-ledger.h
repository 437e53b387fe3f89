#pragma once
// The shim ledger's state (SPEC B §7.3): matches each shim invocation against the plan, keeps
// the per-route call counters, decides matched / unmatched / exhausted, and records shim
// events up to `limits.protocol_events`. No I/O: ShimLedgerServer feeds it HTTP requests, tests
// feed it invocations directly. It owns the plan and the recorded events.
//
// Errors: none thrown after construction; every invocation gets an answer.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "helpers/shim/shim-invocation.h"
#include "helpers/shim/shim-plan.h"

namespace rea::helper {

enum class ShimOutcome { MATCHED, UNMATCHED, EXHAUSTED };

const char* shimOutcomeName(ShimOutcome outcome);
// "matched" | "unmatched" | "exhausted", the ShimEvent `outcome` values of B §4.3.

struct ShimEvent {
  uint32_t sequence;                   // index in the ledger's event list
  uint64_t atNs;                       // CLOCK_MONOTONIC when the request was handled
  std::string command;                 // as the client sent it (not normalised, B §7.3)
  std::optional<uint32_t> routeIndex;  // nullopt exactly when unmatched
  std::vector<std::string> arguments;  // raw: normalised with N at assembly, not here
  std::string workingDirectory;        // raw, likewise
  ShimOutcome outcome;
};

struct ShimAnswer {
  ShimOutcome outcome;
  std::optional<uint32_t> routeIndex;  // the route found (also when exhausted)
  std::string_view routeJson;          // the 200 body when matched, else empty; valid while
                                       // the ledger lives
};

class ShimLedger {
 public:
  ShimLedger(ShimPlan plan, uint32_t protocolEventLimit);
  // `protocolEventLimit` is the scenario's `limits.protocol_events` (evidence/limits.h): the ledger
  // records at most that many events, then marks itself truncated and keeps answering.

  ShimAnswer invoke(ShimInvocation invocation, uint64_t atNs);
  // Matches: the first shim whose name equals `command`, then its first route whose
  // `arguments` equal the invocation's exactly. No shim or no route -> UNMATCHED; the route's
  // counter already at `max_calls` -> EXHAUSTED; else MATCHED and the counter goes up by one.
  // Records the event unless the limit is reached.

  const std::vector<ShimEvent>& events() const { return recorded; }
  // In sequence order. An RPC front end can stream them by remembering how many it has sent.
  bool truncated() const { return isTruncated; }
  // True once an invocation went unrecorded because of the limit.
  uint64_t droppedCount() const { return dropped; }
  // How many invocations went unrecorded (answered all the same); 0 exactly when not truncated.
  void onRecorded(std::function<void(const ShimEvent&)> observer) { recordedObserver = observer; }
  // Called with each event right after it is recorded (inside invoke(), before the answer is
  // sent): how the RPC front end streams events to the supervisor as they happen.
  const ShimPlan& plan() const { return shimPlan; }
  uint32_t callCount(size_t shimIndex, size_t routeIndex) const;
  // Matched calls so far of one declared route.

 private:
  ShimPlan shimPlan;
  uint32_t limit;
  std::vector<std::vector<std::string>> routeJsons;  // [shim][route], precomputed answers
  std::vector<std::vector<uint32_t>> counters;       // [shim][route], matched calls
  std::vector<ShimEvent> recorded;
  bool isTruncated = false;
  uint64_t dropped = 0;
  std::function<void(const ShimEvent&)> recordedObserver;
};

}  // namespace rea::helper
