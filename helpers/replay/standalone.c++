#include "helpers/replay/standalone.h"

#include <capnp/message.h>
#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include "helpers/common/plan-builder.h"
#include "helpers/common/standalone-plan.h"
#include "helpers/replay/replay-job.h"

namespace rea::helper {

ReplayPlan replayPlanFromJson(const evidence::Json& replay) {
  return replayJobConfigFromJson({{"replay", replay}}).plan;
}

ReplayJobConfig replayJobConfigFromJson(const evidence::Json& request) {
  KJ_REQUIRE(request.is_object(), "the request is not a JSON object");
  evidence::Scenario scenario = scenarioParts(request);  // reads `replay` and `limits`
  ReplayJobConfig config;
  // Through the typed plan, as the supervisor sends it: one conversion for both modes.
  capnp::MallocMessageBuilder message;
  auto plan = message.initRoot<schema::ReplayPlan>();
  buildReplayPlan(scenario.replay, plan);
  config.plan = readReplayPlan(plan.asReader());
  config.limits.protocolEvents = uint32_t(scenario.limits.protocolEvents);
  config.limits.protocolBodyBytes = uint64_t(scenario.limits.protocolBodyBytes);
  config.limits.connections = uint32_t(scenario.limits.connections);
  auto loopback = request.find("loopbackNetns");
  if (loopback != request.end()) {
    KJ_REQUIRE(loopback->is_boolean(), "loopbackNetns is not a boolean");
    config.loopbackNetns = loopback->get<bool>();
  }
  return config;
}

evidence::Json protocolEventToJson(const ProtocolEvent& event) {
  evidence::Json line = evidence::Json::object();
  line["event"] = "protocol";
  line["sequence"] = event.sequence;
  line["atNs"] = event.atNs;
  line["protocol"] = protocolName(event.protocol);
  line["direction"] = directionName(event.direction);
  line["method"] = event.method ? evidence::Json(*event.method) : evidence::Json();
  line["path"] = event.path ? evidence::Json(*event.path) : evidence::Json();
  line["data"] = event.data;
  line["outcome"] = outcomeName(event.outcome);
  return line;
}

kj::Promise<void> runReplayStandalone(HelperContext& context, const evidence::Json& request,
                                      JsonLines& out) {
  uint64_t serveMs = 10000;
  auto serve = request.find("serveMs");
  if (serve != request.end()) {
    KJ_REQUIRE(serve->is_number_unsigned(), "serveMs is not a non-negative integer");
    serveMs = serve->get<uint64_t>();
  }
  auto job = kj::heap<ReplayJob>(context.io, replayJobConfigFromJson(request),
                                 [&out](std::vector<ProtocolEvent> events) {
                                   for (auto& event : events)
                                     out.write(protocolEventToJson(event));
                                 });
  uint16_t port = job->start([&context]() { context.lockDown(); });
  std::string base = "127.0.0.1:" + std::to_string(port);
  out.write({{"event", "listening"},
             {"port", port},
             {"httpUrl", "http://" + base},
             {"websocketUrl", "ws://" + base + "/ws"},
             {"originNs", job->originNs()}});
  auto& jobRef = *job;
  return context.io.provider->getTimer()
      .afterDelay(serveMs * kj::MILLISECONDS)
      .then([&jobRef, &out]() {
        ReplayJobSummary summary = jobRef.finish();
        evidence::Json diagnostics = evidence::Json::array();
        for (auto& d : summary.diagnostics) {
          diagnostics.push_back(
              {{"atNs", d.atNs}, {"kind", diagnosticKindName(d.kind)}, {"detail", d.detail}});
        }
        out.write({{"event", "done"},
                   {"droppedEvents", summary.droppedEvents},
                   {"bodyOverLimit", summary.truncation.bodyOverLimit},
                   {"connectionCap", summary.truncation.connectionCap},
                   {"diagnostics", diagnostics}});
      })
      .attach(kj::mv(job));
}

}  // namespace rea::helper
