#include "supervisor/sampler-link.h"

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "helpers/common/clock.h"
#include "supervisor/owned-cleanup.h"
#include "supervisor/sampler-answers.h"
#include "supervisor/sampler-batch.h"
#include "supervisor/helper-message.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

namespace {

const kj::Duration CALL_DEADLINE = 10 * kj::SECONDS;  // prepare, stop, cleanup
const kj::Duration SETTLE_MARGIN = 5 * kj::SECONDS;   // beyond settle_ms

kj::ForkedPromise<void> makeSignal(kj::Own<kj::PromiseFulfiller<void>>& fulfiller) {
  auto paf = kj::newPromiseAndFulfiller<void>();
  fulfiller = kj::mv(paf.fulfiller);
  return paf.promise.fork();
}

}  // namespace

class SamplerLink::Impl final : private kj::TaskSet::ErrorHandler {
 public:
  Impl(kj::AsyncIoContext& io, std::string helperDirectory)
      : io(io),
        helperDirectory(kj::mv(helperDirectory)),
        lostSignal(makeSignal(lostFulfiller)),
        tasks(*this) {}
  ~Impl() noexcept(false);

  kj::Promise<SamplerPrepared> prepare(SamplerPlan plan);
  void start(pid_t rootPid);
  kj::AutoCloseFd execChannel;
  kj::Promise<std::optional<SamplerSettlement>> settle(int64_t settleMs);
  kj::Promise<void> stop();
  kj::Promise<SamplerCleanup> cleanup();

  SamplerRecord record;

  struct Leftover {
    std::string cgroupPath;
    std::string runToken;
    pid_t rootPid;
  };
  bool cleanedUp() const { return finished; }
  Leftover leftover() const { return {cgroupPath(), plan.runToken, rootPid}; }

  void push(kj::FunctionParam<schema::SamplerSink::PushParams::Reader()> readParams);
  void done(kj::FunctionParam<schema::SamplerSink::DoneParams::Reader()> readParams);
  void sinkDropped();

 private:
  class Sink;

  kj::AsyncIoContext& io;
  std::string helperDirectory;
  SamplerPlan plan;
  pid_t rootPid = 0;
  enum class Step { NEW, PREPARED, STARTED, SETTLED, STOPPED, CLEANED };
  Step step = Step::NEW;
  bool shuttingDown = false;
  bool finished = false;  // cleanup() has produced its result: nothing is left to clean
  std::optional<SamplerStreamCheck> stream;  // the sample stream's checks (sampler-batch.h)

  kj::Maybe<kj::Own<HelperProcess>> process;
  kj::Maybe<kj::Own<kj::AsyncIoStream>> connection;
  kj::Maybe<kj::Own<capnp::TwoPartyVatNetwork>> network;
  kj::Maybe<kj::Own<capnp::RpcSystem<capnp::rpc::twoparty::VatId>>> rpc;
  kj::Maybe<schema::Sampler::Client> bootstrap;
  kj::Maybe<schema::SamplerJob::Client> job;
  kj::Maybe<Sink&> sink;

  kj::Own<kj::PromiseFulfiller<void>> lostFulfiller;
  kj::ForkedPromise<void> lostSignal;  // resolves when the helper is lost
  kj::TaskSet tasks;                   // last: destroyed first

  std::string cgroupPath() const {
    return record.prepared ? record.prepared->cgroupPath : std::string();
  }
  template <typename T>
  kj::Promise<kj::Maybe<T>> guarded(kj::Promise<T> call, kj::Duration deadline, kj::StringPtr what);
  void lose(std::string reason, bool kill);
  void violation(kj::StringPtr what);
  void dropConnection();
  kj::Promise<void> shutDown();
  void release();
  SamplerCleanup fallback();
  void taskFailed(kj::Exception&& exception) override {
    lose(std::string("the sampler link failed: ") + exception.getDescription().cStr(), true);
  }
};

class SamplerLink::Impl::Sink final : public schema::SamplerSink::Server {
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

SamplerLink::Impl::~Impl() noexcept(false) {
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  // Members go in reverse order: the tasks first, the connection, then `process`, whose
  // destructor SIGKILLs and reaps a live helper.
}

template <typename T>
kj::Promise<kj::Maybe<T>> SamplerLink::Impl::guarded(kj::Promise<T> call, kj::Duration deadline,
                                                     kj::StringPtr what) {
  // A call that fails, outlives its deadline or is overtaken by the helper's loss yields null.
  auto name = kj::str(what);
  auto name2 = kj::str(what);
  return call
      .then([](T value) -> kj::Maybe<T> { return kj::mv(value); },
            [this, name = kj::mv(name2)](kj::Exception&& exception) -> kj::Maybe<T> {
              // Disconnected: it is dying by itself; killing it now would hide how it
              // ended (shutDown() stops it if it lingers).
              lose(std::string("the sampler helper failed to ") + name.cStr() + ": " +
                       exception.getDescription().cStr(),
                   exception.getType() != kj::Exception::Type::DISCONNECTED);
              return nullptr;
            })
      .exclusiveJoin(lostSignal.addBranch().then([]() -> kj::Maybe<T> { return nullptr; }))
      .exclusiveJoin(io.provider->getTimer().afterDelay(deadline).then(
          [this, name = kj::mv(name)]() -> kj::Maybe<T> {
            lose(std::string("the sampler helper did not ") + name.cStr() + " in time", true);
            return nullptr;
          }));
}

kj::Promise<SamplerPrepared> SamplerLink::Impl::prepare(SamplerPlan planIn) {
  KJ_REQUIRE(step == Step::NEW, "SamplerLink::prepare called twice");
  step = Step::PREPARED;
  plan = kj::mv(planIn);
  KJ_REQUIRE(!plan.runToken.empty(), "a capture needs a run token");
  stream.emplace(plan.maxProcesses);
  record.prepared = SamplerPrepared();
  record.prepared->sampledReason = "the sampler helper is not available";

  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() {
                 auto path = kj::str(helperDirectory.c_str(), "/rea-sampler");
                 process = HelperProcess::spawn(io, "sampler", path, nullptr,
                                                plan.execNotify ? execChannel.get() : -1);
               })) {
    execChannel = nullptr;
    lose(std::string("the sampler helper could not be started: ") + e->getDescription().cStr(),
         false);
    return *record.prepared;
  }
  execChannel = nullptr;  // the helper has its own copy
  auto& helper = *KJ_ASSERT_NONNULL(process);
  tasks.add(helper.whenEnded().then([this](HelperEnd end) {
    if (step != Step::CLEANED && !shuttingDown) {
      lose("the sampler helper " + end.describe(), false);
    }
    if (record.fault) record.fault->end = end;
  }));
  connection = helper.takeConnection();
  capnp::ReaderOptions options;
  options.traversalLimitInWords = HELPER_MESSAGE_LIMIT_WORDS;
  network = kj::heap<capnp::TwoPartyVatNetwork>(*KJ_ASSERT_NONNULL(connection),
                                                capnp::rpc::twoparty::Side::CLIENT, options);
  rpc = kj::heap(capnp::makeRpcClient(*KJ_ASSERT_NONNULL(network)));
  capnp::word scratch[4];
  memset(scratch, 0, sizeof(scratch));
  capnp::MallocMessageBuilder message(scratch);
  auto vatId = message.getRoot<capnp::rpc::twoparty::VatId>();
  vatId.setSide(capnp::rpc::twoparty::Side::SERVER);
  bootstrap = KJ_ASSERT_NONNULL(rpc)->bootstrap(vatId).castAs<schema::Sampler>();

  auto request = KJ_ASSERT_NONNULL(bootstrap).prepareRequest();
  auto config = request.initConfig();
  config.setRunToken(plan.runToken);
  config.setMaxProcesses(plan.maxProcesses);
  config.setForceSampled(plan.forceSampled);
  config.setExecNotify(plan.execNotify);
  config.setMaxPids(plan.maxPids);
  using Response = capnp::Response<schema::Sampler::PrepareResults>;
  return guarded<Response>(request.send(), CALL_DEADLINE, "prepare")
      .then([this](kj::Maybe<Response> maybe) -> SamplerPrepared {
        KJ_IF_MAYBE (response, maybe) {
          KJ_ASSERT_NONNULL(process)->markReady();
          SamplerPrepared prepared;
          KJ_IF_MAYBE (broken, preparedFrom(*response, plan, prepared)) {
            violation(broken->rule.c_str());
          } else {
            job = response->getJob();
            record.prepared = kj::mv(prepared);
          }
        }
        return *record.prepared;
      });
}

void SamplerLink::Impl::start(pid_t root) {
  KJ_REQUIRE(step == Step::PREPARED, "SamplerLink::start out of order");
  KJ_REQUIRE(root > 0, "invalid root pid", root);
  step = Step::STARTED;
  rootPid = root;
  if (record.fault) return;
  auto sinkServer = kj::heap<Sink>(*this);
  sink = *sinkServer;
  auto request = KJ_ASSERT_NONNULL(job).startRequest();
  request.setRootPid(uint32_t(root));
  request.setSink(kj::mv(sinkServer));
  using Response = capnp::Response<schema::SamplerJob::StartResults>;
  tasks.add(guarded<Response>(request.send(), CALL_DEADLINE, "start").ignoreResult());
}

kj::Promise<std::optional<SamplerSettlement>> SamplerLink::Impl::settle(int64_t settleMs) {
  KJ_REQUIRE(step == Step::STARTED, "SamplerLink::settle out of order");
  step = Step::SETTLED;
  if (record.fault) return std::optional<SamplerSettlement>();
  auto request = KJ_ASSERT_NONNULL(job).settleRequest();
  request.setSettleMs(uint64_t(std::max<int64_t>(0, settleMs)));
  using Response = capnp::Response<schema::SamplerJob::SettleResults>;
  auto deadline = SETTLE_MARGIN + uint64_t(std::max<int64_t>(0, settleMs)) * kj::MILLISECONDS;
  return guarded<Response>(request.send(), deadline, "settle")
      .then([this](kj::Maybe<Response> maybe) -> std::optional<SamplerSettlement> {
        KJ_IF_MAYBE (response, maybe) {
          SamplerSettlement settlement;
          KJ_IF_MAYBE (broken, settlementFrom(response->getSettlement(), settlement)) {
            violation(broken->rule.c_str());
            return std::nullopt;
          }
          record.settlement = settlement;
          return settlement;
        }
        return std::nullopt;
      });
}

kj::Promise<void> SamplerLink::Impl::stop() {
  KJ_REQUIRE(step == Step::STARTED || step == Step::SETTLED, "SamplerLink::stop out of order");
  step = Step::STOPPED;
  if (record.fault) return kj::READY_NOW;
  using Response = capnp::Response<schema::SamplerJob::StopResults>;
  return guarded<Response>(KJ_ASSERT_NONNULL(job).stopRequest().send(), CALL_DEADLINE, "stop")
      .then([this](kj::Maybe<Response> maybe) {
        KJ_IF_MAYBE (response, maybe) {
          // done() travels before the answer on the same connection: it must be here.
          if (!record.streamDone) return violation("stop returned before done");
          if (response->getPartial() != record.partial) {
            return violation("stop and done disagree on partial");
          }
        }
      });
}

kj::Promise<SamplerCleanup> SamplerLink::Impl::cleanup() {
  KJ_REQUIRE(step != Step::CLEANED && step != Step::NEW, "SamplerLink::cleanup out of order");
  bool wasStopped = step == Step::STOPPED;
  kj::Promise<void> stopped = kj::READY_NOW;
  if (!wasStopped && step != Step::PREPARED) stopped = stop();
  return stopped.then([this]() -> kj::Promise<SamplerCleanup> {
    if (record.fault || job == nullptr) {
      step = Step::CLEANED;
      return shutDown().then([this]() {
        auto result = fallback();
        finished = true;
        return result;
      });
    }
    using Response = capnp::Response<schema::SamplerJob::CleanupResults>;
    return guarded<Response>(KJ_ASSERT_NONNULL(job).cleanupRequest().send(), CALL_DEADLINE,
                             "clean up")
        .then([this](kj::Maybe<Response> maybe) -> kj::Promise<SamplerCleanup> {
          step = Step::CLEANED;
          std::optional<SamplerCleanup> result;
          KJ_IF_MAYBE (response, maybe) {
            SamplerCleanup cleanup;
            KJ_IF_MAYBE (broken, cleanupFrom(response->getReport(), cleanup)) {
              violation(broken->rule.c_str());
            } else {
              result = kj::mv(cleanup);
            }
          }
          // A helper that answered is trusted with what it could not do (the fallback is for a
          // lost helper: it would only repeat the refusal, slower, and lose the findings); its
          // "complete" is a claim, though: the capture cgroup must really be gone.
          std::string path = cgroupPath();
          if (result && (!result->complete || path.empty() || access(path.c_str(), F_OK) != 0)) {
            release();
            finished = true;
            return kj::Promise<SamplerCleanup>(kj::mv(*result));
          }
          return shutDown().then([this]() {
            auto cleanup = fallback();
            finished = true;
            return cleanup;
          });
        });
  });
}

SamplerCleanup SamplerLink::Impl::fallback() {
  auto owned = cleanUpOwnedProcesses(cgroupPath(), plan.runToken, rootPid);
  SamplerCleanup cleanup;
  cleanup.complete = owned.complete;
  cleanup.problem = owned.problem;
  cleanup.signalledCount = owned.signalled;
  cleanup.unownedCount = owned.unowned;
  cleanup.byFallback = true;
  return cleanup;
}

void SamplerLink::Impl::dropConnection() {
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
}

void SamplerLink::Impl::release() {
  // The helper's work is done and its answer checked: hang up, and let it exit without us
  // waiting (within HELPER_STOP_GRACE, else it is killed; destroying the link reaps it).
  dropConnection();
  KJ_IF_MAYBE (p, process) {
    tasks.add((*p)->stop(HELPER_STOP_GRACE).ignoreResult());
  }
}

kj::Promise<void> SamplerLink::Impl::shutDown() {
  // Drop the connection: a helper whose connection drops exits at once.
  dropConnection();
  KJ_IF_MAYBE (p, process) {
    return ((record.fault) ? (*p)->stopLost(HELPER_STOP_GRACE) : (*p)->stop(HELPER_STOP_GRACE))
        .then([this](HelperEnd end) {
          if (record.fault) record.fault->end = end;  // its sentence says how the helper ended
        });
  }
  return kj::READY_NOW;
}

void SamplerLink::Impl::lose(std::string reason, bool kill) {
  if (record.fault || step == Step::CLEANED) return;
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
  lostFulfiller->fulfill();
}

void SamplerLink::Impl::violation(kj::StringPtr what) {
  lose(std::string("the sampler helper sent a malformed message (") + what.cStr() +
           ") and was stopped",
       true);
}

void SamplerLink::Impl::sinkDropped() {
  sink = nullptr;
  if (!record.streamDone && !record.fault && !shuttingDown) {
    tasks.add(io.provider->getTimer().afterDelay(HELPER_STOP_GRACE).then([this]() {
      if (!record.fault && !record.streamDone) violation("sample sink dropped without done");
    }));
  }
}

void SamplerLink::Impl::push(
    kj::FunctionParam<schema::SamplerSink::PushParams::Reader()> readParams) {
  if (record.fault) return;
  KJ_IF_MAYBE (broken, stream->push(readParams, monotonicNowNs(), record)) {
    violation(broken->rule.c_str());
  }
}

void SamplerLink::Impl::done(
    kj::FunctionParam<schema::SamplerSink::DoneParams::Reader()> readParams) {
  if (record.fault) return;
  KJ_IF_MAYBE (broken, stream->done(readParams, record)) {
    violation(broken->rule.c_str());
  }
}

// ---- SamplerLink -------------------------------------------------------------------------

SamplerLink::SamplerLink(kj::AsyncIoContext& io, std::string helperDirectory)
    : impl(kj::heap<Impl>(io, kj::mv(helperDirectory))) {}

void SamplerLink::setExecChannel(kj::AutoCloseFd channel) {
  impl->execChannel = kj::mv(channel);
}

SamplerLink::~SamplerLink() noexcept(false) {
  if (impl->cleanedUp()) return;
  // Cancelled (the capture promise was dropped) or abandoned before cleanup: the helper goes
  // first (destroying the Impl kills and reaps it), so it cannot race us; then the supervisor
  // cleans up what the capture owns itself.
  auto leftover = impl->leftover();
  impl = nullptr;
  if (leftover.runToken.empty()) return;
  auto result = cleanUpOwnedProcesses(leftover.cgroupPath, leftover.runToken, leftover.rootPid);
  if (!result.complete) {
    KJ_LOG(WARNING, "owned-process cleanup after cancellation was incomplete", result.problem);
  }
}

kj::Promise<SamplerPrepared> SamplerLink::prepare(SamplerPlan plan) {
  return impl->prepare(kj::mv(plan));
}

void SamplerLink::start(pid_t rootPid) {
  impl->start(rootPid);
}

kj::Promise<std::optional<SamplerSettlement>> SamplerLink::settle(int64_t settleMs) {
  return impl->settle(settleMs);
}

kj::Promise<void> SamplerLink::stop() {
  return impl->stop();
}

kj::Promise<SamplerCleanup> SamplerLink::cleanup() {
  return impl->cleanup();
}

const SamplerRecord& SamplerLink::record() const {
  return impl->record;
}

}  // namespace rea::supervisor
