#include "helpers/replay/replay-state.h"

namespace rea::helper {
namespace {

WebSocketScript legacyScriptOf(const ReplayPlan& plan) {
  WebSocketScript script;
  for (const std::string& data : plan.websocketMessages)
    script.messages.push_back({data, 0});
  return script;
}

}  // namespace

ReplayState::ReplayState(kj::Timer& timer, const kj::MonotonicClock& clock, ReplayPlan plan,
                         ReplayLimits limits, ReplayServerOptions options)
    : timer(timer),
      clock(clock),
      plan(kj::mv(plan)),
      limits(limits),
      options(options),
      legacyScript(legacyScriptOf(this->plan)),
      matcher(this->plan.http),
      recorder(limits.protocolEvents, clock),
      sessionContext{
          timer, clock, recorder, diagnostics, limits.protocolBodyBytes, options.closeTimeout} {}

kj::Maybe<const WebSocketScript&> ReplayState::scriptFor(uint32_t connectionNumber) const {
  if (plan.websocketConnections.empty()) return legacyScript;
  if (connectionNumber >= 1 && connectionNumber <= plan.websocketConnections.size()) {
    return plan.websocketConnections[connectionNumber - 1];
  }
  return nullptr;
}

kj::Promise<void> delayAtLeast(kj::Timer& timer, const kj::MonotonicClock& clock,
                               uint32_t delayMs) {
  uint64_t startNs = monotonicNs(clock);
  uint64_t wantedNs = uint64_t(delayMs) * 1000000;
  return timer.afterDelay(delayMs * kj::MILLISECONDS)
      .then([&timer, &clock, startNs, wantedNs]() -> kj::Promise<void> {
        uint64_t elapsedNs = monotonicNs(clock) - startNs;
        if (elapsedNs >= wantedNs) return kj::READY_NOW;
        // +1 ms: this wait, too, starts from the loop's (slightly older) idea of now.
        return timer.afterDelay((wantedNs - elapsedNs) * kj::NANOSECONDS + 1 * kj::MILLISECONDS);
      });
}

}  // namespace rea::helper
