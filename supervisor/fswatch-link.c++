#include "supervisor/fswatch-link.h"

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>
#include <string.h>
#include <time.h>

#include "helpers/common/clock.h"
#include "evidence/utf.h"
#include "supervisor/fswatch-batch.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

namespace {

const uint64_t FSWATCH_READER_LIMIT_WORDS =
    128 * 1024 * 1024;  // 1 GiB: 100000 entries of deep paths

kj::ArrayPtr<const kj::byte> bytesOf(const std::string& text) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text.data()), text.size());
}

}  // namespace

class FswatchLink::Impl {
 public:
  Impl(kj::AsyncIoContext& io, std::vector<std::string> roots, FswatchLimits limits,
       std::string helperDirectory, kj::Duration deadline)
      : io(io),
        roots(kj::mv(roots)),
        limits(limits),
        helperDirectory(kj::mv(helperDirectory)),
        deadline(deadline) {
    KJ_REQUIRE(this->roots.size() <= 16, "more than 16 filesystem roots");
    for (const auto& root : this->roots) {
      KJ_REQUIRE(!root.empty() && root[0] == '/', "a filesystem root is not absolute");
    }
    KJ_REQUIRE(limits.files >= 1 && limits.files <= 100000, "files out of range");
    KJ_REQUIRE(limits.fileBytes >= 1 && limits.fileBytes <= 100000000, "fileBytes out of range");
    KJ_REQUIRE(limits.depth >= 1 && limits.depth <= 64, "depth out of range");
  }

  ~Impl() noexcept(false) {
    queue = kj::READY_NOW;  // cancels a call in flight before the RPC system goes
    bootstrap = nullptr;
    rpc = nullptr;
    network = nullptr;
    connection = nullptr;
    // `process` goes last (declared first): its destructor SIGKILLs and reaps a live helper.
  }

  kj::Promise<FswatchOutcome> snapshot(bool final) {
    auto paf = kj::newPromiseAndFulfiller<FswatchOutcome>();
    auto fulfiller = kj::mv(paf.fulfiller);
    queue = kj::mv(queue)
                .then([this, final, fulfiller = kj::mv(fulfiller)]() mutable {
                  return kj::evalNow([this, final]() { return takeOne(final); })
                      .catch_([this](kj::Exception&& exception) {
                        // A bug of ours, not the helper's: keep the record honest.
                        lose(std::string("the fswatch link failed: ") +
                             exception.getDescription().cStr());
                        return lost();
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

  kj::Maybe<HelperFault> fault;
  kj::Maybe<kj::Own<HelperProcess>> process;

 private:
  kj::AsyncIoContext& io;
  std::vector<std::string> roots;
  FswatchLimits limits;
  std::string helperDirectory;
  kj::Duration deadline;
  bool finished = false;
  kj::Maybe<kj::Own<kj::AsyncIoStream>> connection;
  kj::Maybe<kj::Own<capnp::TwoPartyVatNetwork>> network;
  kj::Maybe<kj::Own<capnp::RpcSystem<capnp::rpc::twoparty::VatId>>> rpc;
  kj::Maybe<schema::Fswatch::Client> bootstrap;
  kj::Promise<void> queue = kj::READY_NOW;

  FswatchOutcome lost() {
    FswatchOutcome outcome;
    outcome.kind = FswatchOutcome::Kind::LOST;
    outcome.atNs = monotonicNowNs();
    return outcome;
  }

  void lose(std::string reason) {
    if (fault != nullptr) return;
    HelperFault f{kj::mv(reason), std::nullopt};
    KJ_IF_MAYBE (p, process) {
      (*p)->kill();
      KJ_IF_MAYBE (end, (*p)->end()) {
        f.end = *end;
      }
    }
    fault = kj::mv(f);
    bootstrap = nullptr;
  }

  void ensureHelper() {
    if (process != nullptr) return;
    auto path = kj::str(helperDirectory.c_str(), "/rea-fswatch");
    process = HelperProcess::spawn(io, "fswatch", path, nullptr);
    connection = KJ_ASSERT_NONNULL(process)->takeConnection();
    capnp::ReaderOptions options;
    options.traversalLimitInWords = FSWATCH_READER_LIMIT_WORDS;
    network = kj::heap<capnp::TwoPartyVatNetwork>(*KJ_ASSERT_NONNULL(connection),
                                                  capnp::rpc::twoparty::Side::CLIENT, options);
    rpc = kj::heap(capnp::makeRpcClient(*KJ_ASSERT_NONNULL(network)));
    capnp::word scratch[4];
    memset(scratch, 0, sizeof(scratch));
    capnp::MallocMessageBuilder message(scratch);
    auto vatId = message.getRoot<capnp::rpc::twoparty::VatId>();
    vatId.setSide(capnp::rpc::twoparty::Side::SERVER);
    bootstrap = KJ_ASSERT_NONNULL(rpc)->bootstrap(vatId).castAs<schema::Fswatch>();
  }

  // Waits (briefly) for a helper whose call failed to be reaped, so the fault says how it ended.
  kj::Promise<FswatchOutcome> lostDuringSnapshot(kj::String what) {
    auto& helper = *KJ_ASSERT_NONNULL(process);
    return helper.whenEnded()
        .then([](HelperEnd end) -> kj::Maybe<HelperEnd> { return end; })
        .exclusiveJoin(io.provider->getTimer()
                           .afterDelay(HELPER_STOP_GRACE)
                           .then([]() -> kj::Maybe<HelperEnd> { return nullptr; }))
        .then([this, what = kj::mv(what)](kj::Maybe<HelperEnd> end) {
          KJ_IF_MAYBE (e, end) {
            lose("the fswatch helper " + e->describe() + " during a snapshot");
          } else {
            lose(std::string("the fswatch helper failed a snapshot (") + what.cStr() +
                 ") and was stopped");
          }
          return lost();
        });
  }

  kj::Promise<FswatchOutcome> takeOne(bool final) {
    if (fault != nullptr || finished) return lost();
    KJ_IF_MAYBE (e, kj::runCatchingExceptions([this]() { ensureHelper(); })) {
      lose(std::string("the fswatch helper could not be started: ") + e->getDescription().cStr());
      return lost();
    }
    auto request = KJ_ASSERT_NONNULL(bootstrap).snapshotRequest();
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
          KJ_ASSERT_NONNULL(process)->markReady();
          return accept([&]() { return response.getResult(); });
        },
        [this](kj::Exception&& exception) -> kj::Promise<FswatchOutcome> {
          if (exception.getType() != kj::Exception::Type::DISCONNECTED) {
            KJ_ASSERT_NONNULL(process)->markReady();
          }
          return lostDuringSnapshot(kj::str(exception.getDescription()));
        });
    return answer.exclusiveJoin(io.provider->getTimer().afterDelay(deadline).then([this]() {
      lose("the fswatch helper did not answer a snapshot in time and was stopped");
      return lost();
    }));
  }

  FswatchOutcome accept(kj::FunctionParam<schema::SnapshotResult::Reader()> readResult) {
    FswatchOutcome outcome;
    outcome.atNs = monotonicNowNs();
    KJ_IF_MAYBE (broken, checkSnapshotResult(readResult, roots.size(), limits, outcome)) {
      lose("the fswatch helper sent a malformed snapshot (" + broken->rule + ") and was stopped");
      return lost();
    }
    return outcome;
  }

  kj::Promise<void> shutDown() {
    bootstrap = nullptr;
    rpc = nullptr;
    network = nullptr;
    hangUp(process, connection);
    KJ_IF_MAYBE (p, process) {
      return ((fault != nullptr) ? (*p)->stopLost(HELPER_STOP_GRACE)
                                 : (*p)->stop(HELPER_STOP_GRACE))
          .then([this](HelperEnd end) {
            KJ_IF_MAYBE (f, fault) {
              f->end = end;
            }
          });
    }
    return kj::READY_NOW;
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
  KJ_IF_MAYBE (f, impl->fault) {
    return *f;
  }
  return nullptr;
}

kj::Maybe<pid_t> FswatchLink::helperPid() const {
  KJ_IF_MAYBE (p, impl->process) {
    if ((*p)->end() == nullptr) return (*p)->pid();
  }
  return nullptr;
}

std::string fsFailureMessage(const FsFailure& failure) {
  return "A filesystem snapshot could not read " + evidence::sanitizeUtf8(failure.entry) + " (" +
         failure.operation + ": " + strerror(failure.error) + ").";
}

}  // namespace rea::supervisor
