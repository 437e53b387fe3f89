#include "supervisor/shim-link.h"

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>
#include <nlohmann/json.hpp>
#include <string.h>
#include <time.h>

#include "evidence/utf.h"
#include "schema/shim.capnp.h"

namespace rea::supervisor {

namespace {

const kj::Duration STOP_GRACE = 500 * kj::MILLISECONDS;  // voluntary exit before SIGKILL
// A start answer comes at once (it binds a port); a helper silent for this long has stalled,
// and nothing else would end the capture (A13: rea ends within its deadline).
const kj::Duration START_DEADLINE = 5 * kj::SECONDS;
const uint64_t READER_LIMIT_WORDS = 8 * 1024 * 1024;  // 64 MiB; a batch is ~64 KiB
const size_t MAX_BATCH = 4096;
// A recorded call came from one request body of at most 64 KiB; decoding may turn each
// ill-formed byte into U+FFFD (3 bytes), so its strings together stay below 3 × 64 KiB.
const size_t MAX_CALL_TEXT_BYTES = 3 * 64 * 1024;

uint64_t monotonicNowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

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

  void push(capnp::List<schema::ShimInvocation>::Reader events);
  void done(schema::StreamSummary::Reader summary);
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
  uint64_t lastAtNs = 0;
  std::vector<std::vector<uint32_t>> matchedCounts;  // [shim][route]

  kj::TaskSet tasks;  // last: destroyed first

  HelperProcess& helper() { return *KJ_ASSERT_NONNULL(process); }
  kj::Promise<std::string> startHelper(ShimLaunch launch);
  kj::Maybe<kj::StringPtr> check(schema::ShimInvocation::Reader event, ShimCall& call);
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
      i->push(context.getParams().getEvents());
    }
    return kj::READY_NOW;
  }
  kj::Promise<void> done(DoneContext context) override {
    KJ_IF_MAYBE (i, impl) {
      i->done(context.getParams().getSummary());
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
  lastAtNs = launch.t0Ns;
  for (const auto& shim : launch.shims)
    matchedCounts.emplace_back(shim.routes.size(), 0);

  auto path = kj::str(helperDirectory.c_str(), "/rea-shim");
  process = HelperProcess::spawn(io, "shim", path, nullptr);
  tasks.add(helper().whenEnded().then([this](HelperEnd end) { helperEnded(end); }));
  connection = helper().takeConnection();
  capnp::ReaderOptions options;
  options.traversalLimitInWords = READER_LIMIT_WORDS;
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
        return io.provider->getTimer().afterDelay(STOP_GRACE).then([this]() {
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
  connection = nullptr;
  auto stopped = record.fault ? helper().stopLost(STOP_GRACE) : helper().stop(STOP_GRACE);
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
    tasks.add(io.provider->getTimer().afterDelay(STOP_GRACE).then([this]() {
      if (!record.fault && !record.streamDone) violation("event sink dropped without done");
    }));
  }
}

kj::Maybe<kj::StringPtr> ShimLink::Impl::check(schema::ShimInvocation::Reader event,
                                               ShimCall& call) {
  // Returns what is wrong with `event`, or null; fills `call` and counts a match.
  if (event.getSequence() != record.calls.size()) return "a sequence that is not contiguous"_kj;
  if (record.calls.size() >= launch.protocolEventLimit) {
    return "more events than the protocol-event limit"_kj;
  }
  call.sequence = event.getSequence();
  call.atNs = event.getAtNs();
  if (call.atNs < lastAtNs) return "timestamps go back in time"_kj;
  if (call.atNs > monotonicNowNs()) return "a timestamp in the future"_kj;

  size_t textBytes = 0;
  auto take = [&textBytes](capnp::Text::Reader text, std::string& out) {
    out.assign(text.begin(), text.size());
    textBytes += out.size();
    return evidence::isValidUtf8(out);
  };
  if (!take(event.getCommand(), call.command)) return "a command that is not UTF-8"_kj;
  if (!take(event.getWorkingDirectory(), call.workingDirectory)) {
    return "a working directory that is not UTF-8"_kj;
  }
  for (auto argument : event.getArguments()) {
    call.arguments.emplace_back();
    if (!take(argument, call.arguments.back())) return "an argument that is not UTF-8"_kj;
    if (textBytes > MAX_CALL_TEXT_BYTES) break;
  }
  if (textBytes > MAX_CALL_TEXT_BYTES) return "a call larger than a 64 KiB request"_kj;

  // The ledger's matching, repeated (B §7.3): the first shim of that name, then its first route
  // with exactly these arguments.
  std::optional<size_t> shimIndex, routeIndex;
  for (size_t s = 0; s < launch.shims.size() && !shimIndex; ++s) {
    if (launch.shims[s].name != call.command) continue;
    shimIndex = s;
    const auto& routes = launch.shims[s].routes;
    for (size_t r = 0; r < routes.size(); ++r) {
      if (routes[r].arguments == call.arguments) {
        routeIndex = r;
        break;
      }
    }
  }
  int32_t claimedRoute = event.getRouteIndex();
  switch (event.getOutcome()) {
    case schema::ShimInvocation::Outcome::UNMATCHED:
      if (claimedRoute != -1) return "an unmatched call with a route"_kj;
      if (routeIndex) return "an unmatched call that a route matches"_kj;
      call.outcome = ShimCall::Outcome::UNMATCHED;
      return nullptr;
    case schema::ShimInvocation::Outcome::MATCHED:
    case schema::ShimInvocation::Outcome::EXHAUSTED: {
      if (!routeIndex || claimedRoute < 0 || size_t(claimedRoute) != *routeIndex) {
        return "a route that is not the one the arguments match"_kj;
      }
      call.routeIndex = uint32_t(*routeIndex);
      uint32_t& count = matchedCounts[*shimIndex][*routeIndex];
      int maxCalls = launch.shims[*shimIndex].routes[*routeIndex].maxCalls;
      if (event.getOutcome() == schema::ShimInvocation::Outcome::MATCHED) {
        if (int(count) >= maxCalls) return "more matched calls than max_calls"_kj;
        ++count;
        call.outcome = ShimCall::Outcome::MATCHED;
      } else {
        if (int(count) < maxCalls) return "an exhausted route with calls left"_kj;
        call.outcome = ShimCall::Outcome::EXHAUSTED;
      }
      return nullptr;
    }
  }
  return "an unknown outcome"_kj;
}

void ShimLink::Impl::push(capnp::List<schema::ShimInvocation>::Reader events) {
  if (record.fault) return;
  if (record.streamDone) return violation("events after done");
  if (events.size() > MAX_BATCH) return violation("a batch of more than 4096 events");
  for (auto event : events) {
    ShimCall call;
    KJ_IF_MAYBE (problem, check(event, call)) {
      return violation(*problem);
    }
    lastAtNs = call.atNs;
    record.calls.push_back(kj::mv(call));
  }
}

void ShimLink::Impl::done(schema::StreamSummary::Reader summary) {
  if (record.fault) return;
  if (record.streamDone) return violation("done twice");
  if (summary.getTruncated() != (summary.getDroppedCount() > 0)) {
    return violation("a summary whose truncated flag contradicts its count");
  }
  if (summary.getTruncated() && record.calls.size() != launch.protocolEventLimit) {
    return violation("truncated before the protocol-event limit");
  }
  record.streamDone = true;
  record.truncated = summary.getTruncated();
  record.droppedCalls = summary.getDroppedCount();
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
