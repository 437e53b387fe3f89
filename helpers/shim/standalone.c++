#include "helpers/shim/standalone.h"

#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include "helpers/shim/shim-job.h"

namespace rea::helper {

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
