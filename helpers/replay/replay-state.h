#pragma once
// ReplayState: what every connection of one replay server shares — the plan and its route
// counters, the limits and defences, the record, the header table, and the WebSocket connection
// numbering (B §8.3: 1, 2, … in accept order). Owned by ReplayServer; internal to the replay
// server's files.
//
// Errors: none.

#include <cstdint>

#include <kj/compat/http.h>
#include <kj/timer.h>

#include "helpers/replay/protocol-recorder.h"
#include "helpers/replay/replay-diagnostics.h"
#include "helpers/replay/replay-plan.h"
#include "helpers/replay/replay-server.h"
#include "helpers/replay/route-matcher.h"
#include "helpers/replay/websocket-session.h"

namespace rea::helper {

struct ReplayState {
  ReplayState(kj::Timer& timer, const kj::MonotonicClock& clock, ReplayPlan plan,
              ReplayLimits limits, ReplayServerOptions options);
  KJ_DISALLOW_COPY(ReplayState);

  kj::Timer& timer;
  const kj::MonotonicClock& clock;
  const ReplayPlan plan;
  const ReplayLimits limits;
  const ReplayServerOptions options;
  const WebSocketScript legacyScript;  // websocket_messages as a script (delay 0, no close)
  kj::HttpHeaderTable headerTable;
  RouteMatcher matcher;
  ProtocolRecorder recorder;
  ReplayDiagnostics diagnostics;
  WebSocketSessionContext sessionContext;
  uint32_t webSocketConnections = 0;  // accepted WebSocket upgrades so far

  uint64_t nowNs() const { return monotonicNs(clock); }
  void note(ReplayDiagnostic::Kind kind, std::string detail) {
    diagnostics.add(nowNs(), kind, std::move(detail));
  }
  kj::Maybe<const WebSocketScript&> scriptFor(uint32_t connectionNumber) const;
  // B §8.3: entry n-1 of websocket_connections when that list is non-empty (null when there is
  // no such entry), else websocket_messages for every connection.
};

kj::Promise<void> delayAtLeast(kj::Timer& timer, const kj::MonotonicClock& clock, uint32_t delayMs);
// Resolves at least `delayMs` after now as `clock` measures it (the clock that stamps events).
// kj's timer counts from when the event loop last woke, which can lie a few ms in the past, so a
// plain afterDelay() can end early by the events' timestamps; one top-up wait covers that. A
// zero delay still yields to the event loop once.

}  // namespace rea::helper
