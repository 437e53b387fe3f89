#include "supervisor/shim-link.h"

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>
#include <nlohmann/json.hpp>
#include <string.h>
#include <time.h>

#include "helpers/common/clock.h"
#include "supervisor/shim-batch.h"
#include "supervisor/helper-message.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

namespace {

// A start answer comes at once (it binds a port); a helper silent for this long has stalled,
// and nothing else would end the capture (A13: rea ends within its deadline).
// 10 s, as the sampler's calls: a sanitizer build starting three helpers at once on a loaded
// two-core machine (the test suite beside a headless browser) once needed more than 5 s.
const kj::Duration START_DEADLINE = 10 * kj::SECONDS;

kj::ArrayPtr<const kj::byte> bytesOf(const std::string& text) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text.data()), text.size());
}

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
  KJ_REQUIRE(launch.protocolEventLimit >= 1 && launch.protocolEventLimit <= 100000,
             "protocolEventLimit out of range");
  KJ_REQUIRE(launch.t0Ns > 0 && launch.t0Ns <= monotonicNowNs(), "t0Ns is not a past time");
}

std::string planJson(const ShimLaunch& launch) {
  // Exactly manifest.shim_plan (evidence/projection shimPlan): the helper answers from it.
  evidence::Json plan = evidence::Json::array();
  for (const auto& shim : launch.shims)
    plan.push_back(evidence::toJson(shim));
  return plan.dump();
}

}  // namespace

class ShimLink::Impl final : private kj::TaskSet::ErrorHandler {
 public:
  Impl(kj::AsyncIoContext& io, std::string helperDirectory)
      : io(io), helperDirectory(kj::mv(helperDirectory)), tasks(*this) {}

  ~Impl() noexcept(false);

  kj::Promise<std::string> start(ShimLaunch launch);
  kj::Promise<void> finish(kj::Duration deadline);

  ShimRecord record;

  void push(kj::FunctionParam<schema::ShimSink::PushParams::Reader()> readParams);
  void done(kj::FunctionParam<schema::ShimSink::DoneParams::Reader()> readParams);
  void sinkDropped();

 private:
  class Sink;

  kj::AsyncIoContext& io;
  std::string helperDirectory;
  ShimLaunch launch;

  kj::Maybe<kj::Own<HelperProcess>> process;
  kj::Maybe<kj::Own<kj::AsyncIoStream>> connection;
  kj::Maybe<kj::Own<capnp::TwoPartyVatNetwork>> network;
  kj::Maybe<kj::Own<capnp::RpcSystem<capnp::rpc::twoparty::VatId>>> rpc;
  kj::Maybe<schema::Shim::Client> bootstrap;
  kj::Maybe<schema::ShimJob::Client> job;
  kj::Maybe<Sink&> sink;  // the server object the RPC system owns; it detaches on our death

  bool started = false;
  bool finishCalled = false;
  bool shuttingDown = false;
  bool launchRefused = false;
  std::optional<ShimStreamCheck> stream;  // the invocation stream's checks (shim-batch.h)

  kj::TaskSet tasks;  // last: destroyed first

  HelperProcess& helper() { return *KJ_ASSERT_NONNULL(process); }
  kj::Promise<std::string> startHelper(ShimLaunch launch);
  void violation(kj::StringPtr what);
  void lose(std::string reason, bool kill);
  void helperEnded(const HelperEnd& end);
  kj::Promise<void> shutDown();
  void taskFailed(kj::Exception&& exception) override {
    lose(std::string("the shim link failed: ") + exception.getDescription().cStr(), true);
  }
};

class ShimLink::Impl::Sink final : public schema::ShimSink::Server {
 public:
  explicit Sink(Impl& impl) : impl(impl) {}
  ~Sink() noexcept(false) {
    KJ_IF_MAYBE (i, impl) {
      i->sinkDropped();
    }
  }
  void detach() { impl = nullptr; }

  kj::Promise<void> push(PushContext context) override {
    KJ_IF_MAYBE (i, impl) {
      i->push([&]() { return context.getParams(); });
    }
    return kj::READY_NOW;
  }
  kj::Promise<void> done(DoneContext context) override {
    KJ_IF_MAYBE (i, impl) {
      i->done([&]() { return context.getParams(); });
    }
    return kj::READY_NOW;
  }

 private:
  kj::Maybe<Impl&> impl;
};

ShimLink::Impl::~Impl() noexcept(false) {
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  job = nullptr;
  bootstrap = nullptr;
  rpc = nullptr;
  network = nullptr;
  connection = nullptr;
  // `process` (declared first) goes last: its destructor SIGKILLs and reaps a live helper.
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

  auto path = kj::str(helperDirectory.c_str(), "/rea-shim");
  process = HelperProcess::spawn(io, "shim", path, nullptr);
  tasks.add(helper().whenEnded().then([this](HelperEnd end) { helperEnded(end); }));
  connection = helper().takeConnection();
  capnp::ReaderOptions options;
  options.traversalLimitInWords = HELPER_MESSAGE_LIMIT_WORDS;
  network = kj::heap<capnp::TwoPartyVatNetwork>(*KJ_ASSERT_NONNULL(connection),
                                                capnp::rpc::twoparty::Side::CLIENT, options);
  auto& vatNetwork = *KJ_ASSERT_NONNULL(network);
  rpc = kj::heap(capnp::makeRpcClient(vatNetwork));
  capnp::word scratch[4];
  memset(scratch, 0, sizeof(scratch));
  capnp::MallocMessageBuilder message(scratch);
  auto vatId = message.getRoot<capnp::rpc::twoparty::VatId>();
  vatId.setSide(capnp::rpc::twoparty::Side::SERVER);
  bootstrap = KJ_ASSERT_NONNULL(rpc)->bootstrap(vatId).castAs<schema::Shim>();
  tasks.add(vatNetwork.onDisconnect().then(
      [this]() {
        if (shuttingDown || record.fault) return kj::Promise<void>(kj::READY_NOW);
        // The helper closed its end: give it a moment to exit, then make sure; helperEnded()
        // reports how it ended.
        return io.provider->getTimer().afterDelay(HELPER_STOP_GRACE).then([this]() {
          if (helper().end() == nullptr) helper().kill();
        });
      },
      [](kj::Exception&&) { return kj::Promise<void>(kj::READY_NOW); }));

  auto sinkServer = kj::heap<Sink>(*this);
  sink = *sinkServer;
  auto request = KJ_ASSERT_NONNULL(bootstrap).startRequest();
  auto config = request.initConfig();
  config.setPlanJson(planJson(launch));
  config.setShimsDirectory(bytesOf(launch.shimsDirectory));
  config.setClientPath(bytesOf(helperDirectory + "/rea-shim-client"));
  config.setProtocolEventLimit(launch.protocolEventLimit);
  config.setNetns(bytesOf(launch.netnsPath));
  config.setUserns(bytesOf(launch.usernsPath));
  request.setSink(kj::mv(sinkServer));
  return request.send()
      .then(
          [this](capnp::Response<schema::Shim::StartResults>&& response) -> std::string {
            helper().markReady();
            uint16_t port = response.getPort();
            if (port == 0) {
              violation("start answered port 0");
              KJ_FAIL_REQUIRE("the shim helper answered start with an invalid port");
            }
            job = response.getJob();
            record.port = port;
            return "http://127.0.0.1:" + std::to_string(port) + "/invoke";
          },
          [this](kj::Exception&& exception) -> std::string {
            if (exception.getType() != kj::Exception::Type::DISCONNECTED) {
              helper().markReady();  // it answered: the launch itself failed
              launchRefused = true;
            }
            kj::throwFatalException(kj::mv(exception));
          })
      .exclusiveJoin(
          io.provider->getTimer().afterDelay(START_DEADLINE).then([this]() -> std::string {
            lose("the shim helper did not answer start in time", true);
            KJ_FAIL_REQUIRE("the shim helper did not answer start in time");
          }));
}

kj::Promise<void> ShimLink::Impl::finish(kj::Duration deadline) {
  KJ_REQUIRE(!finishCalled, "ShimLink::finish called twice");
  finishCalled = true;
  kj::Promise<void> finished = kj::READY_NOW;
  KJ_IF_MAYBE (j, job) {
    if (!record.fault) {
      finished = j->finishRequest()
                     .send()
                     .ignoreResult()
                     .then(
                         [this]() {
                           // done() travels before finish's answer on the same connection.
                           if (!record.streamDone && !record.fault) {
                             violation("finish returned before done");
                           }
                         },
                         [this](kj::Exception&& exception) {
                           if (!record.fault && !record.streamDone) {
                             // Disconnected: it is dying by itself; killing it now
                             // would hide how it ended (the sentence says that).
                             lose(std::string("the shim helper failed to finish: ") +
                                      exception.getDescription().cStr(),
                                  exception.getType() != kj::Exception::Type::DISCONNECTED);
                           }
                         })
                     .exclusiveJoin(io.provider->getTimer().afterDelay(deadline).then(
                         [this]() { lose("the shim helper did not finish in time", true); }));
    }
  }
  return finished.then([this]() { return shutDown(); });
}

kj::Promise<void> ShimLink::Impl::shutDown() {
  if (process == nullptr) return kj::READY_NOW;  // start() failed before spawning
  shuttingDown = true;
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  sink = nullptr;
  job = nullptr;
  bootstrap = nullptr;
  rpc = nullptr;
  network = nullptr;
  hangUp(process, connection);
  auto stopped =
      record.fault ? helper().stopLost(HELPER_STOP_GRACE) : helper().stop(HELPER_STOP_GRACE);
  return stopped.then([this](HelperEnd end) { helperEnded(end); });
}

void ShimLink::Impl::helperEnded(const HelperEnd& end) {
  record.helperEnd = end;
  if (record.fault) {
    record.fault->end = end;
  } else if (!record.streamDone && !launchRefused && record.port != 0) {
    lose("the shim helper " + end.describe() + " before its event stream ended", false);
    record.fault->end = end;
  }
}

void ShimLink::Impl::lose(std::string reason, bool kill) {
  if (record.fault) return;
  record.fault = HelperFault{kj::mv(reason), std::nullopt};
  KJ_IF_MAYBE (p, process) {
    if (kill) (*p)->kill();
    KJ_IF_MAYBE (end, (*p)->end()) {
      record.fault->end = *end;
    }
  }
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  sink = nullptr;
}

void ShimLink::Impl::violation(kj::StringPtr what) {
  lose(
      std::string("the shim helper sent a malformed message (") + what.cStr() + ") and was stopped",
      true);
}

void ShimLink::Impl::sinkDropped() {
  sink = nullptr;
  if (!record.streamDone && !record.fault && !shuttingDown) {
    tasks.add(io.provider->getTimer().afterDelay(HELPER_STOP_GRACE).then([this]() {
      if (!record.fault && !record.streamDone) violation("event sink dropped without done");
    }));
  }
}

void ShimLink::Impl::push(kj::FunctionParam<schema::ShimSink::PushParams::Reader()> readParams) {
  if (record.fault) return;
  KJ_IF_MAYBE (broken, stream->push(readParams, monotonicNowNs(), record)) {
    violation(broken->rule.c_str());
  }
}

void ShimLink::Impl::done(kj::FunctionParam<schema::ShimSink::DoneParams::Reader()> readParams) {
  if (record.fault) return;
  KJ_IF_MAYBE (broken, stream->done(readParams, record)) {
    violation(broken->rule.c_str());
  }
}

// ---- ShimLink ---------------------------------------------------------------------------

ShimLink::ShimLink(kj::AsyncIoContext& io, std::string helperDirectory)
    : impl(kj::heap<Impl>(io, kj::mv(helperDirectory))) {}

ShimLink::~ShimLink() noexcept(false) {}

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
