#include "helpers/shim/standalone.h"

#include <capnp/message.h>
#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include "helpers/common/request-field.h"
#include "evidence/limits.h"
#include "helpers/common/plan-builder.h"
#include "helpers/common/standalone-plan.h"
#include "helpers/shim/shim-job.h"

namespace rea::helper {

ShimPlan shimPlanFromJson(const evidence::Json& commandShims) {
  evidence::Scenario parts = scenarioParts({{"command_shims", commandShims}});
  // Through the typed plan, as the supervisor sends it: one conversion for both modes.
  capnp::MallocMessageBuilder message;
  auto plan = message.initRoot<schema::ShimPlan>();
  buildShimPlan(parts.commandShims, plan);
  return readShimPlan(plan.asReader());
}

ShimJobConfig shimJobConfigFromJson(const evidence::Json& request) {
  KJ_REQUIRE(request.is_object(), "the request is not a JSON object");
  ShimJobConfig config;
  auto shims = request.find("commandShims");
  KJ_REQUIRE(shims != request.end() && shims->is_array(), "commandShims must be an array");
  config.plan = shimPlanFromJson(*shims);
  config.shimsDirectory = field<std::string>(request, "shimsDirectory", "");
  KJ_REQUIRE(!config.shimsDirectory.empty(), "shimsDirectory is required");
  config.clientPath = field<std::string>(request, "clientPath", "");
  KJ_REQUIRE(!config.clientPath.empty(), "clientPath is required");
  config.protocolEventLimit = field<uint32_t>(
      request, "protocolEventLimit", uint32_t(evidence::limit::PROTOCOL_EVENTS.defaultValue));
  return config;
}

kj::Promise<void> runShimStandalone(HelperContext& context, const evidence::Json& request,
                                    JsonLines& out) {
  uint64_t serveMs = 10000;
  auto it = request.find("serveMs");
  if (it != request.end()) {
    KJ_REQUIRE(it->is_number_unsigned(), "serveMs must be a non-negative integer");
    serveMs = it->get<uint64_t>();
  }
  auto job = ShimJob::start(
      context.io, shimJobConfigFromJson(request),
      [&out](const ShimEvent& event) { out.write(shimEventToJson(event)); },
      [&context]() { context.lockDown(); });
  out.write({{"event", "listening"},
             {"port", job->port()},
             {"url", "http://127.0.0.1:" + std::to_string(job->port()) + "/invoke"}});
  auto& jobRef = *job;
  return context.io.provider->getTimer()
      .afterDelay(serveMs * kj::MILLISECONDS)
      .then([&jobRef, &out]() {
        jobRef.stop();
        out.write({{"event", "done"},
                   {"truncated", jobRef.ledger().truncated()},
                   {"droppedCount", jobRef.ledger().droppedCount()}});
      })
      .attach(kj::mv(job));
}

}  // namespace rea::helper
