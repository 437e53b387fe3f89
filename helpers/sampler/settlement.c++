#include "helpers/sampler/settlement.h"

#include <algorithm>

#include <kj/debug.h>

#include "helpers/common/clock.h"

namespace rea::helper {
namespace {

constexpr uint64_t TICK_MS = 50;

struct SettlementLoop {
  SettlementLoop(kj::Timer& timer, CaptureScope& scope, std::string runToken, pid_t rootPid,
                 uint64_t settleMs, std::function<kj::Promise<void>()> whenCgroupChanges)
      : timer(timer),
        scope(scope),
        runToken(kj::mv(runToken)),
        rootPid(rootPid),
        settleMs(settleMs),
        whenCgroupChanges(kj::mv(whenCgroupChanges)),
        exact(scope.cgroup() != nullptr) {}

  kj::Timer& timer;
  CaptureScope& scope;
  std::string runToken;
  pid_t rootPid;
  uint64_t settleMs;
  std::function<kj::Promise<void>()> whenCgroupChanges;
  bool exact;
  uint64_t startNs = monotonicNowNs();
  int consecutiveEmpty = 0;

  int64_t elapsedMs() const { return static_cast<int64_t>((monotonicNowNs() - startNs) / 1000000); }

  Settlement result(Settlement::State state) { return Settlement{state, elapsedMs(), {}, {}}; }

  // One observation: EMPTY, ALIVE or an unverifiable result.
  enum class Seen { EMPTY, ALIVE, UNVERIFIABLE };
  Seen observe(Settlement& failure) {
    std::vector<ProcStat> members;
    KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() {
                   if (exact && scope.isEmpty()) return;
                   members = scope.liveMembers();
                 })) {
      KJ_LOG(WARNING, "settlement: capture membership unreadable", *exception);
      failure = result(Settlement::State::UNVERIFIABLE);
      failure.problem = "process group could not be inspected";
      return Seen::UNVERIFIABLE;
    }
    bool alive = false;
    for (const auto& member : members) {
      Ownership ownership = checkRunToken(member.pid, runToken);
      if (ownership == Ownership::GONE) continue;
      alive = true;
      if (ownership == Ownership::OWNED) continue;
      if (failure.unverified.empty()) failure.problem = ownershipProblem(ownership);
      failure.unverified.push_back(describeProcess(member, ownership, rootPid));
    }
    if (!failure.unverified.empty()) {
      failure.state = Settlement::State::UNVERIFIABLE;
      failure.elapsedMs = elapsedMs();
      return Seen::UNVERIFIABLE;
    }
    // A cgroup that still counts a member whose exit is in flight is alive; the next look
    // (on the cgroup.events change) sees it empty.
    if (exact) return alive || !scope.isEmpty() ? Seen::ALIVE : Seen::EMPTY;
    return alive ? Seen::ALIVE : Seen::EMPTY;
  }

  kj::Promise<Settlement> step() {
    Settlement failure{Settlement::State::UNVERIFIABLE, 0, {}, {}};
    switch (observe(failure)) {
      case Seen::UNVERIFIABLE:
        return kj::mv(failure);
      case Seen::EMPTY:
        if (exact || ++consecutiveEmpty >= 2) return result(Settlement::State::QUIESCED);
        break;
      case Seen::ALIVE:
        consecutiveEmpty = 0;
        break;
    }
    uint64_t elapsed = static_cast<uint64_t>(elapsedMs());
    if (elapsed >= settleMs) return result(Settlement::State::ALIVE_AT_DEADLINE);
    uint64_t waitMs = exact ? std::min(TICK_MS, settleMs - elapsed) : TICK_MS;
    kj::Promise<void> wake = sleepUntilNs(timer, monotonicNowNs() + waitMs * 1000000);
    if (exact && whenCgroupChanges) wake = wake.exclusiveJoin(whenCgroupChanges());
    return wake.then([this]() { return step(); });
  }
};

}  // namespace

const char* settlementStateName(Settlement::State state) {
  switch (state) {
    case Settlement::State::QUIESCED:
      return "quiesced";
    case Settlement::State::ALIVE_AT_DEADLINE:
      return "alive_at_deadline";
    case Settlement::State::UNVERIFIABLE:
      return "unverifiable";
  }
  KJ_UNREACHABLE;
}

std::string ownershipProblem(Ownership ownership) {
  switch (ownership) {
    case Ownership::TOKEN_MISSING:
    case Ownership::TOKEN_DIFFERENT:
      return "group contains an unowned or PID-reused process";
    case Ownership::UNREADABLE:
      return "ownership could not be revalidated";
    case Ownership::OWNED:
    case Ownership::GONE:
      break;
  }
  KJ_FAIL_REQUIRE("not an ownership failure", ownershipName(ownership));
}

kj::Promise<Settlement> settle(kj::Timer& timer, CaptureScope& scope, std::string runToken,
                               pid_t rootPid, uint64_t settleMs,
                               std::function<kj::Promise<void>()> whenCgroupChanges) {
  auto loop = kj::heap<SettlementLoop>(timer, scope, kj::mv(runToken), rootPid, settleMs,
                                       kj::mv(whenCgroupChanges));
  auto promise = kj::evalNow([&]() { return loop->step(); });
  return promise.attach(kj::mv(loop));
}

}  // namespace rea::helper
