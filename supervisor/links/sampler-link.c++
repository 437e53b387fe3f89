#include "supervisor/links/sampler-link.h"

#include <kj/debug.h>
#include <unistd.h>

#include "supervisor/links/helper-link.h"
#include "supervisor/run/owned-cleanup.h"
#include "supervisor/links/sampler-answers.h"
#include "supervisor/links/sampler-batch.h"

namespace rea::supervisor {

namespace {

const kj::Duration CALL_DEADLINE = 10 * kj::SECONDS;  // prepare, stop, cleanup
const kj::Duration SETTLE_MARGIN = 5 * kj::SECONDS;   // beyond settle_ms

}  // namespace

class SamplerLink::Impl final : public LinkRecord<SamplerRecord>, public HelperLink {
 public:
  Impl(kj::AsyncIoContext& io, std::string helperDirectory)
      : HelperLink(io, "sampler", kj::mv(helperDirectory), {record.fault, &record.streamDone}) {
    sinkNoun = "sample";
  }

  kj::Promise<SamplerPrepared> prepare(SamplerPlan plan);
  void start(pid_t rootPid);
  kj::Promise<std::optional<SamplerSettlement>> settle(int64_t settleMs);
  kj::Promise<void> stop();
  kj::Promise<SamplerCleanup> cleanup();

  struct Leftover {
    std::string cgroupPath;
    std::string runToken;
    pid_t rootPid;
  };
  bool cleanedUp() const { return finished; }
  Leftover leftover() const { return {cgroupPath(), plan.runToken, rootPid}; }

 private:
  SamplerPlan plan;
  pid_t rootPid = 0;
  enum class Step { NEW, PREPARED, STARTED, SETTLED, STOPPED, CLEANED };
  Step step = Step::NEW;
  bool finished = false;  // cleanup() has produced its result: nothing is left to clean
  std::optional<SamplerStreamCheck> stream;  // the sample stream's checks (sampler-batch.h)

  std::string cgroupPath() const {
    return record.prepared ? record.prepared->cgroupPath : std::string();
  }
  template <typename T>
  kj::Promise<kj::Maybe<T>> guarded(kj::Promise<T> call, kj::Duration deadline, kj::StringPtr what);
  void cleaned() {
    step = Step::CLEANED;
    jobComplete();  // the answer (or its absence) is final: nothing the helper does is a loss
  }
  void release();
  SamplerCleanup fallback();
  void ended(const HelperEnd& end) override {
    // Any end before its work is done is a loss, stream or not.
    if (!shuttingDown()) lose("the sampler helper " + end.describe(), false);
    if (record.fault) record.fault->end = end;  // its sentence says how the helper ended
  }
};

template <typename T>
kj::Promise<kj::Maybe<T>> SamplerLink::Impl::guarded(kj::Promise<T> call, kj::Duration deadline,
                                                     kj::StringPtr what) {
  // A call that fails, outlives its deadline or is overtaken by the helper's loss yields null.
  auto name = kj::str(what);
  auto name2 = kj::str(what);
  return call
      .then([](T value) -> kj::Maybe<T> { return kj::mv(value); },
            [this, name = kj::mv(name2)](kj::Exception&& exception) -> kj::Maybe<T> {
              // shutDown() stops a disconnected helper if it lingers.
              callFailed(name, exception);
              return nullptr;
            })
      .exclusiveJoin(whenLost().then([]() -> kj::Maybe<T> { return nullptr; }))
      .exclusiveJoin(
          timer().afterDelay(deadline).then([this, name = kj::mv(name)]() -> kj::Maybe<T> {
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

  Spawn options;
  options.passExecChannel = plan.execNotify;
  options.killOnHangUp = false;  // its end is watched (ended()), and every call has a deadline
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { spawn(options); })) {
    lose(std::string("the sampler helper could not be started: ") + e->getDescription().cStr(),
         false);
    return *record.prepared;
  }

  auto request = bootstrap<schema::Sampler>().prepareRequest();
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
          helper().markReady();
          SamplerPrepared prepared;
          KJ_IF_MAYBE (broken, preparedFrom(*response, plan, prepared)) {
            violation(broken->rule.c_str());
          } else {
            setJob(response->getJob());
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
  auto request = job<schema::SamplerJob>().startRequest();
  request.setRootPid(uint32_t(root));
  request.setSink(newSink<schema::SamplerSink>(*stream, record));
  using Response = capnp::Response<schema::SamplerJob::StartResults>;
  addTask(guarded<Response>(request.send(), CALL_DEADLINE, "start").ignoreResult());
}

kj::Promise<std::optional<SamplerSettlement>> SamplerLink::Impl::settle(int64_t settleMs) {
  KJ_REQUIRE(step == Step::STARTED, "SamplerLink::settle out of order");
  step = Step::SETTLED;
  if (record.fault) return std::optional<SamplerSettlement>();
  auto request = job<schema::SamplerJob>().settleRequest();
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
  return guarded<Response>(job<schema::SamplerJob>().stopRequest().send(), CALL_DEADLINE, "stop")
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
    if (record.fault || !hasJob()) {
      cleaned();
      return shutDown().then([this]() {
        auto result = fallback();
        finished = true;
        return result;
      });
    }
    using Response = capnp::Response<schema::SamplerJob::CleanupResults>;
    return guarded<Response>(job<schema::SamplerJob>().cleanupRequest().send(), CALL_DEADLINE,
                             "clean up")
        .then([this](kj::Maybe<Response> maybe) -> kj::Promise<SamplerCleanup> {
          cleaned();
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

void SamplerLink::Impl::release() {
  // The helper's work is done and its answer checked: hang up, and let it exit without us
  // waiting (within HELPER_STOP_GRACE, else it is killed; destroying the link reaps it).
  dropConnection();
  KJ_IF_MAYBE (p, process()) {
    addTask(p->stop(HELPER_STOP_GRACE).ignoreResult());
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
