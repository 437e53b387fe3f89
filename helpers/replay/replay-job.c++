#include "helpers/replay/replay-job.h"

#include <kj/debug.h>

#include "helpers/replay/loopback-netns.h"

namespace rea::helper {

ReplayJob::ReplayJob(kj::AsyncIoContext& io, ReplayJobConfig config,
                     std::function<void(std::vector<ProtocolEvent>)> onEvents)
    : server(kj::heap<ReplayServer>(io, kj::mv(config.plan), config.limits,
                                    kj::systemPreciseMonotonicClock())),
      onEvents(kj::mv(onEvents)),
      loopbackNetns(config.loopbackNetns) {}

uint16_t ReplayJob::start(kj::Function<void()> lockDown) {
  if (loopbackNetns) {
    // A9: the namespace is made here, before the filter (it forks, unshares, setns). The fds are
    // dropped once we are inside: the supervisor holds the namespace through /proc/<pid>/ns.
    LoopbackNetnsResult result = createLoopbackNetns();
    KJ_IF_MAYBE (ns, result.netns) {
      enterLoopbackNetns(ns->net.get(), ns->user.get());
    } else {
      KJ_FAIL_REQUIRE(result.detail);
    }
    netnsDetail = result.detail;
  }
  uint16_t port = server->listen();
  lockDown();
  server->recorder().setListener([this]() { drain(); });
  drain();
  return port;
}

uint64_t ReplayJob::originNs() {
  return server->recorder().originNs();
}

void ReplayJob::drain() {
  auto events = server->recorder().takeEvents();
  if (!events.empty()) onEvents(kj::mv(events));
}

ReplayJobSummary ReplayJob::finish() {
  KJ_REQUIRE(!finished, "finish called twice");
  finished = true;
  server->close();
  drain();
  ReplayJobSummary summary;
  auto& recorder = server->recorder();
  summary.droppedEvents = recorder.droppedCount();
  summary.truncation = recorder.truncation();
  summary.diagnostics = server->diagnostics().kept();
  summary.diagnosticCount = server->diagnostics().total();
  return summary;
}

}  // namespace rea::helper
