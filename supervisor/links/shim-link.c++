#include "supervisor/links/shim-link.h"

#include <kj/debug.h>

#include "evidence/limits.h"
#include "helpers/common/clock.h"
#include "helpers/common/plan-builder.h"
#include "supervisor/links/helper-link.h"
#include "supervisor/links/shim-batch.h"

namespace rea::supervisor {

using helper::buildShimPlan;
using helper::monotonicNowNs;

namespace {

void validateLaunch(const ShimLaunch& launch) {
  // The scenario parser enforces these already (B §3.4, §3.6); repeated so the helper gets
  // nothing out of range from us either.
  KJ_REQUIRE(!launch.shims.empty() && launch.shims.size() <= 32, "shim count out of range");
  for (const auto& shim : launch.shims) {
    KJ_REQUIRE(!shim.name.empty() && shim.name.size() <= 128 &&
                   shim.name.find('/') == std::string::npos && shim.name != "." &&
                   shim.name != "..",
               "invalid shim name", shim.name);
    KJ_REQUIRE(!shim.routes.empty() && shim.routes.size() <= 100, "route count out of range");
    for (const auto& route : shim.routes) {
      KJ_REQUIRE(route.maxCalls >= 1 && route.maxCalls <= 100, "max_calls out of range");
    }
  }
  KJ_REQUIRE(!launch.shimsDirectory.empty(), "shims directory is empty");
  KJ_REQUIRE(evidence::limit::PROTOCOL_EVENTS.contains(launch.protocolEventLimit),
             "protocolEventLimit out of range");
  KJ_REQUIRE(launch.t0Ns > 0 && launch.t0Ns <= monotonicNowNs(), "t0Ns is not a past time");
}

}  // namespace

class ShimLink::Impl final : public LinkRecord<ShimRecord>, public HelperLink {
 public:
  Impl(kj::AsyncIoContext& io, std::string helperDirectory)
      : HelperLink(io, "shim", helperDirectory,
                   {record.fault, &record.streamDone, &record.helperEnd}),
        clientPath(kj::mv(helperDirectory) + "/rea-shim-client") {}

  void spawnEarly();
  kj::Promise<std::string> start(ShimLaunch launch);
  kj::Promise<void> finish(kj::Duration deadline) {
    KJ_REQUIRE(!finishing(), "ShimLink::finish called twice");
    return finishJob<schema::ShimJob>(deadline);
  }

 private:
  std::string clientPath;  // what the shim files run
  ShimLaunch launch;
  bool started = false;
  std::optional<ShimStreamCheck> stream;  // the invocation stream's checks (shim-batch.h)

  kj::Promise<std::string> startHelper(ShimLaunch launch);
  std::string started_(capnp::Response<schema::Shim::StartResults>&& response);
};

void ShimLink::Impl::spawnEarly() {
  KJ_REQUIRE(!started, "ShimLink::spawnEarly after start");
  HelperLink::spawnEarly(Spawn());
}

kj::Promise<std::string> ShimLink::Impl::start(ShimLaunch launchIn) {
  KJ_REQUIRE(!started, "ShimLink::start called twice");
  return kj::evalNow([&]() { return startHelper(kj::mv(launchIn)); });
}

kj::Promise<std::string> ShimLink::Impl::startHelper(ShimLaunch launchIn) {
  started = true;
  validateLaunch(launchIn);
  launch = kj::mv(launchIn);
  stream.emplace(launch);
  spawnForStart(Spawn());

  auto request = bootstrap<schema::Shim>().startRequest();
  auto config = request.initConfig();
  // Exactly manifest.shim_plan (evidence/projection shimPlan), typed: the helper answers from it.
  buildShimPlan(launch.shims, config.initPlan());
  config.setShimsDirectory(bytesOf(launch.shimsDirectory));
  config.setClientPath(bytesOf(clientPath));
  config.setProtocolEventLimit(launch.protocolEventLimit);
  config.setNetns(bytesOf(launch.netnsPath));
  config.setUserns(bytesOf(launch.usernsPath));
  request.setSink(newSink<schema::ShimSink>(*stream, record));
  using Response = capnp::Response<schema::Shim::StartResults>;
  return startAnswer<std::string>(
      request.send(), [this](Response&& response) { return started_(kj::mv(response)); }, true);
}

std::string ShimLink::Impl::started_(capnp::Response<schema::Shim::StartResults>&& response) {
  helper().markReady();
  uint16_t port = response.getPort();
  if (port == 0) {
    violation("start answered port 0");
    KJ_FAIL_REQUIRE("the shim helper answered start with an invalid port");
  }
  setJob(response.getJob());
  record.port = port;
  streamOwed(true);  // the ledger serves: an end before done() is a loss
  return "http://127.0.0.1:" + std::to_string(port) + "/invoke";
}

// ---- ShimLink ---------------------------------------------------------------------------

ShimLink::ShimLink(kj::AsyncIoContext& io, std::string helperDirectory)
    : impl(kj::heap<Impl>(io, kj::mv(helperDirectory))) {}

ShimLink::~ShimLink() noexcept(false) {}

void ShimLink::spawnEarly() {
  impl->spawnEarly();
}

kj::Promise<std::string> ShimLink::start(ShimLaunch launch) {
  return impl->start(kj::mv(launch));
}

kj::Promise<void> ShimLink::finish(kj::Duration deadline) {
  return impl->finish(deadline);
}

const ShimRecord& ShimLink::record() const {
  return impl->record;
}

}  // namespace rea::supervisor
