#pragma once
// ReplayJob: one capture's replay server as the helper runs it, shared by the RPC server and the
// standalone mode. Owns the ReplayServer and, for network_access "loopback", the namespace it
// entered. Order of start(): make and enter the namespace (when asked) → bind 127.0.0.1:0 →
// lock down (the seccomp filter) → serve. Recorded events are handed to `onEvents` as they
// happen (batching is the caller's).
//
// Errors: start() throws FAILED naming the reason (a malformed plan, no namespace: the
// detail of createLoopbackNetns(), a failed bind).

#include <functional>
#include <string>
#include <vector>

#include <kj/async-io.h>

#include "helpers/replay/protocol-recorder.h"
#include "helpers/replay/replay-diagnostics.h"
#include "helpers/replay/replay-plan.h"
#include "helpers/replay/replay-server.h"

namespace rea::helper {

struct ReplayJobConfig {
  ReplayPlan plan;
  ReplayLimits limits;
  bool loopbackNetns = false;
};

struct ReplayJobSummary {
  uint64_t droppedEvents = 0;  // events dropped at limits.protocol_events
  ReplayTruncation truncation;
  std::vector<ReplayDiagnostic> diagnostics;  // the kept ones
  uint64_t diagnosticCount = 0;
};

class ReplayJob {
 public:
  ReplayJob(kj::AsyncIoContext& io, ReplayJobConfig config,
            std::function<void(std::vector<ProtocolEvent>)> onEvents);
  KJ_DISALLOW_COPY(ReplayJob);

  uint16_t start(kj::Function<void()> lockDown);
  // Enters the namespace when configured, listens, calls `lockDown`, returns the port.

  uint64_t originNs();  // the recorder's clock origin (CLOCK_MONOTONIC ns)
  uint16_t port() const { return server->port(); }
  std::string detail() const { return netnsDetail; }

  ReplayJobSummary finish();
  // Closes the server (B §8.4), hands the last events to `onEvents`, returns the verdict.

 private:
  kj::Own<ReplayServer> server;
  std::function<void(std::vector<ProtocolEvent>)> onEvents;
  bool loopbackNetns;
  std::string netnsDetail;
  bool finished = false;

  void drain();
};

}  // namespace rea::helper
