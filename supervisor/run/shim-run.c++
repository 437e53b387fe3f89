#include "supervisor/run/shim-run.h"

#include <kj/debug.h>

#include "supervisor/run/capture-run.h"

namespace rea::supervisor {

ShimRun::ShimRun(kj::AsyncIoContext& io, std::vector<evidence::CommandShim> shims,
                 uint32_t protocolEventLimit)
    : io(io), shims(std::move(shims)), protocolEventLimit(protocolEventLimit) {}

void ShimRun::spawnEarly() {
  if (shims.empty() || link != nullptr) return;
  auto owned = kj::heap<ShimLink>(io);
  owned->spawnEarly();
  link = kj::mv(owned);
}

kj::Promise<std::optional<std::string>> ShimRun::start(uint64_t t0Ns, std::string shimsDirectory,
                                                       std::string netnsPath,
                                                       std::string usernsPath) {
  if (shims.empty()) return std::optional<std::string>();
  if (link == nullptr) link = kj::heap<ShimLink>(io);
  auto& ref = *KJ_ASSERT_NONNULL(link);
  ShimLaunch launch;
  launch.shims = shims;
  launch.shimsDirectory = shimsDirectory;
  launch.protocolEventLimit = protocolEventLimit;
  launch.t0Ns = t0Ns;
  launch.netnsPath = std::move(netnsPath);
  launch.usernsPath = std::move(usernsPath);
  return ref.start(std::move(launch)).then([](std::string url) {
    return std::optional<std::string>(std::move(url));
  });
}

kj::Promise<void> ShimRun::finish(CaptureRunResult& result) {
  KJ_IF_MAYBE (l, link) {
    auto& ref = **l;
    return ref.finish().then([&ref, &result]() {
      result.shims = ref.record();
      if (ref.record().fault)
        result.lostHelpers.push_back({"shim", ref.record().fault->sentence()});
    });
  }
  return kj::READY_NOW;
}

}  // namespace rea::supervisor
