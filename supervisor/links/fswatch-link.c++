#include "supervisor/links/fswatch-link.h"

#include <kj/debug.h>
#include <string.h>

#include "helpers/common/clock.h"
#include "evidence/utf.h"
#include "supervisor/links/fswatch-batch.h"
#include "supervisor/links/helper-link.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

namespace {

const uint64_t FSWATCH_READER_LIMIT_WORDS =
    128 * 1024 * 1024;  // 1 GiB: 100000 entries of deep paths

}  // namespace

class FswatchLink::Impl final : public LinkRecord<std::optional<HelperFault>>, public HelperLink {
 public:
  Impl(kj::AsyncIoContext& io, std::vector<std::string> roots, FswatchLimits limits,
       std::string helperDirectory, kj::Duration deadline)
      : HelperLink(io, "fswatch", kj::mv(helperDirectory), {record}),
        roots(kj::mv(roots)),
        limits(limits),
        deadline(deadline) {
    KJ_REQUIRE(this->roots.size() <= 16, "more than 16 filesystem roots");
    for (const auto& root : this->roots) {
      KJ_REQUIRE(!root.empty() && root[0] == '/', "a filesystem root is not absolute");
    }
    KJ_REQUIRE(evidence::limit::FILES.contains(limits.files), "files out of range");
    KJ_REQUIRE(evidence::limit::FILE_BYTES.contains(limits.fileBytes), "fileBytes out of range");
    KJ_REQUIRE(evidence::limit::FILESYSTEM_DEPTH.contains(limits.depth), "depth out of range");
  }

  ~Impl() noexcept(false) {
    queue = kj::READY_NOW;  // cancels a call in flight before the RPC system goes
  }

  kj::Promise<FswatchOutcome> snapshot(bool final) {
    auto paf = kj::newPromiseAndFulfiller<FswatchOutcome>();
    auto fulfiller = kj::mv(paf.fulfiller);
    queue = kj::mv(queue)
                .then([this, final, fulfiller = kj::mv(fulfiller)]() mutable {
                  return kj::evalNow([this, final]() { return takeOne(final); })
                      .catch_([this](kj::Exception&& exception) {
                        linkFailed(exception);
                        return lostOutcome();
                      })
                      .then([fulfiller = kj::mv(fulfiller)](FswatchOutcome outcome) mutable {
                        fulfiller->fulfill(kj::mv(outcome));
                      });
                })
                .eagerlyEvaluate(nullptr);
    return kj::mv(paf.promise);
  }

  kj::Promise<void> finish() {
    KJ_REQUIRE(!finished, "FswatchLink::finish called twice");
    auto done = kj::mv(queue).then([this]() { return shutDown(); });
    finished = true;
    queue = kj::READY_NOW;
    return done;
  }

  kj::Maybe<pid_t> pid() const {
    KJ_IF_MAYBE (p, process()) {
      if (p->end() == nullptr) return p->pid();
    }
    return nullptr;
  }

 private:
  std::vector<std::string> roots;
  FswatchLimits limits;
  kj::Duration deadline;
  bool finished = false;
  kj::Promise<void> queue = kj::READY_NOW;

  FswatchOutcome lostOutcome() {
    FswatchOutcome outcome;
    outcome.kind = FswatchOutcome::Kind::LOST;
    outcome.atNs = monotonicNowNs();
    return outcome;
  }

  void lost() override {
    dropBootstrap();  // no request goes out any more
  }

  void ensureHelper() {
    if (spawned()) return;
    Spawn options;
    options.readerLimitWords = FSWATCH_READER_LIMIT_WORDS;
    options.watchEnd = false;      // a snapshot call notices (lostDuringSnapshot)
    options.killOnHangUp = false;  // and so does the next one
    spawn(options);
  }

  // Waits (briefly) for a helper whose call failed to be reaped, so the fault says how it ended.
  kj::Promise<FswatchOutcome> lostDuringSnapshot(kj::String what) {
    return helper()
        .whenEnded()
        .then([](HelperEnd end) -> kj::Maybe<HelperEnd> { return end; })
        .exclusiveJoin(timer().afterDelay(HELPER_STOP_GRACE).then([]() -> kj::Maybe<HelperEnd> {
          return nullptr;
        }))
        .then([this, what = kj::mv(what)](kj::Maybe<HelperEnd> end) {
          KJ_IF_MAYBE (e, end) {
            lose("the fswatch helper " + e->describe() + " during a snapshot", true);
          } else {
            lose(std::string("the fswatch helper failed a snapshot (") + what.cStr() +
                     ") and was stopped",
                 true);
          }
          return lostOutcome();
        });
  }

  kj::Promise<FswatchOutcome> takeOne(bool final) {
    if (faulted() || finished) return lostOutcome();
    KJ_IF_MAYBE (e, kj::runCatchingExceptions([this]() { ensureHelper(); })) {
      lose(std::string("the fswatch helper could not be started: ") + e->getDescription().cStr(),
           true);
      return lostOutcome();
    }
    auto request = bootstrap<schema::Fswatch>().snapshotRequest();
    auto rootList = request.initRoots(roots.size());
    for (size_t i = 0; i < roots.size(); ++i)
      rootList.set(i, bytesOf(roots[i]));
    auto limitsOut = request.initLimits();
    limitsOut.setFiles(limits.files);
    limitsOut.setFileBytes(limits.fileBytes);
    limitsOut.setDepth(limits.depth);
    request.setFinal(final);
    auto answer = request.send().then(
        [this](capnp::Response<schema::Fswatch::SnapshotResults>&& response)
            -> kj::Promise<FswatchOutcome> {
          helper().markReady();
          return accept([&]() { return response.getResult(); });
        },
        [this](kj::Exception&& exception) -> kj::Promise<FswatchOutcome> {
          if (exception.getType() != kj::Exception::Type::DISCONNECTED) {
            helper().markReady();
          }
          return lostDuringSnapshot(kj::str(exception.getDescription()));
        });
    return answer.exclusiveJoin(timer().afterDelay(deadline).then([this]() {
      lose("the fswatch helper did not answer a snapshot in time and was stopped", true);
      return lostOutcome();
    }));
  }

  FswatchOutcome accept(kj::FunctionParam<schema::SnapshotResult::Reader()> readResult) {
    FswatchOutcome outcome;
    outcome.atNs = monotonicNowNs();
    KJ_IF_MAYBE (broken, checkSnapshotResult(readResult, roots.size(), limits, outcome)) {
      lose("the fswatch helper sent a malformed snapshot (" + broken->rule + ") and was stopped",
           true);
      return lostOutcome();
    }
    return outcome;
  }
};

FswatchLink::FswatchLink(kj::AsyncIoContext& io, std::vector<std::string> roots,
                         FswatchLimits limits, std::string helperDirectory, kj::Duration deadline)
    : impl(kj::heap<Impl>(io, kj::mv(roots), limits, kj::mv(helperDirectory), deadline)) {}

FswatchLink::~FswatchLink() noexcept(false) {}

kj::Promise<FswatchOutcome> FswatchLink::snapshot(bool final) {
  return impl->snapshot(final);
}

kj::Promise<void> FswatchLink::finish() {
  return impl->finish();
}

kj::Maybe<const HelperFault&> FswatchLink::fault() const {
  if (impl->record) return *impl->record;  // the fswatch link's record is its fault
  return nullptr;
}

kj::Maybe<pid_t> FswatchLink::helperPid() const {
  return impl->pid();
}

std::string fsFailureMessage(const FsFailure& failure) {
  return "A filesystem snapshot could not read " + evidence::sanitizeUtf8(failure.entry) + " (" +
         failure.operation + ": " + strerror(failure.error) + ").";
}

}  // namespace rea::supervisor
