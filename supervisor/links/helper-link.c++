#include "supervisor/links/helper-link.h"

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>
#include <string.h>

namespace rea::supervisor {

kj::ForkedPromise<void> newSignal(kj::Own<kj::PromiseFulfiller<void>>& fulfiller) {
  auto paf = kj::newPromiseAndFulfiller<void>();
  fulfiller = kj::mv(paf.fulfiller);
  return paf.promise.fork();
}

struct HelperLink::Rpc {
  // The client side of the helper's socketpair: its messages are read within `limitWords`.
  Rpc(kj::AsyncIoStream& connection, uint64_t limitWords)
      : network(connection, capnp::rpc::twoparty::Side::CLIENT, readerOptions(limitWords)),
        system(capnp::makeRpcClient(network)) {}

  static capnp::ReaderOptions readerOptions(uint64_t limitWords) {
    capnp::ReaderOptions options;
    options.traversalLimitInWords = limitWords;
    return options;
  }

  capnp::Capability::Client bootstrap() {
    capnp::word scratch[4];
    memset(scratch, 0, sizeof(scratch));
    capnp::MallocMessageBuilder message(scratch);
    auto vatId = message.getRoot<capnp::rpc::twoparty::VatId>();
    vatId.setSide(capnp::rpc::twoparty::Side::SERVER);
    return system.bootstrap(vatId);
  }

  capnp::TwoPartyVatNetwork network;
  capnp::RpcSystem<capnp::rpc::twoparty::VatId> system;  // goes first
};

HelperLink::HelperLink(kj::AsyncIoContext& io, kj::StringPtr name, std::string helperDirectory,
                       Record record)
    : io(io),
      name(kj::str(name)),
      helperDirectory(kj::mv(helperDirectory)),
      fault(record.fault),
      streamDone(record.streamDone),
      helperEnd(record.helperEnd),
      lostSignal(newSignal(lostFulfiller)),
      tasks(*this) {}

HelperLink::~HelperLink() noexcept(false) {
  detachSink();
  job_ = nullptr;
  bootstrap_ = nullptr;
  rpc = nullptr;
  connection = nullptr;
  // `process_` (declared first) goes last: its destructor SIGKILLs and reaps a live helper.
}

kj::Maybe<HelperProcess&> HelperLink::process() {
  KJ_IF_MAYBE (p, process_) {
    return **p;
  }
  return nullptr;
}

kj::Maybe<const HelperProcess&> HelperLink::process() const {
  KJ_IF_MAYBE (p, process_) {
    return **p;
  }
  return nullptr;
}

void HelperLink::spawn(Spawn options) {
  auto path = kj::str(helperDirectory.c_str(), "/rea-", name);
  auto channel = kj::mv(execChannel);  // closed when this returns: the helper has a copy
  process_ =
      HelperProcess::spawn(io, name, path, nullptr, options.passExecChannel ? channel.get() : -1);
  if (options.owesStream) streamOwed(true);
  if (options.watchEnd) {
    tasks.add(helper().whenEnded().then([this](HelperEnd end) { ended(end); }));
  }
  connection = helper().takeConnection();
  auto ownRpc = kj::heap<Rpc>(*KJ_ASSERT_NONNULL(connection), options.readerLimitWords);
  auto& rpcNow = *ownRpc;
  rpc = kj::mv(ownRpc);
  bootstrap_ = rpcNow.bootstrap();
  if (!options.killOnHangUp) return;
  tasks.add(rpcNow.network.onDisconnect().then(
      [this]() {
        if (hangingUp || faulted()) return kj::Promise<void>(kj::READY_NOW);
        // The helper closed its end (it is dying or confused): give it a moment to exit, then
        // make sure; ended() reports how it ended.
        return timer().afterDelay(HELPER_STOP_GRACE).then([this]() {
          if (helper().end() == nullptr) helper().kill();
        });
      },
      [](kj::Exception&&) {
        // The network was destroyed by dropConnection(): nothing to watch any more.
        return kj::Promise<void>(kj::READY_NOW);
      }));
}

void HelperLink::spawnEarly(Spawn options) {
  KJ_REQUIRE(!spawned(), "a helper link spawns once");
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { spawn(options); })) {
    earlySpawnFailure = kj::mv(*e);  // start() rejects with it, as if it had spawned the helper
  }
}

void HelperLink::spawnForStart(Spawn options) {
  KJ_IF_MAYBE (e, earlySpawnFailure) {
    kj::throwFatalException(kj::mv(*e));
  }
  if (!spawned()) spawn(options);
  KJ_IF_MAYBE (end, helper().end()) {
    // Spawned early and already gone: no answer will come (ended() said how).
    KJ_FAIL_REQUIRE("the helper ended before its start", name, end->describe());
  }
}

void HelperLink::startRefused(const kj::Exception& exception) {
  if (exception.getType() != kj::Exception::Type::DISCONNECTED) {
    helper().markReady();  // it answered: the launch itself failed
    owesStream = false;
  }
}

void HelperLink::startTimedOut() {
  auto sentence = kj::str("the ", name, " helper did not answer start in time");
  lose(sentence.cStr(), true);
  kj::throwFatalException(
      kj::Exception(kj::Exception::Type::FAILED, __FILE__, __LINE__, kj::mv(sentence)));
}

kj::Promise<void> HelperLink::awaitFinish(kj::Maybe<kj::Promise<void>> call,
                                          kj::Duration deadline) {
  kj::Promise<void> finished = kj::READY_NOW;
  KJ_IF_MAYBE (c, call) {
    finished = c->then(
                    [this]() {
                      // The helper awaits done() before finish returns, and both travel on one
                      // connection in order: done must be here.
                      if (!streamEnded()) violation("finish returned before done");
                    },
                    [this](kj::Exception&& exception) {
                      if (!faulted() && !streamEnded()) callFailed("finish", exception);
                    })
                   .exclusiveJoin(timer().afterDelay(deadline).then([this]() {
                     lose(kj::str("the ", name, " helper did not finish in time").cStr(), true);
                   }));
  }
  return finished.then([this]() { return shutDown(); });
}

void HelperLink::dropConnection() {
  hangingUp = true;
  detachSink();
  job_ = nullptr;
  bootstrap_ = nullptr;
  rpc = nullptr;
  hangUp(process_, connection);
}

kj::Promise<void> HelperLink::shutDown() {
  dropConnection();
  if (process_ == nullptr) return kj::READY_NOW;  // nothing was spawned
  auto stopped =
      faulted() ? helper().stopLost(HELPER_STOP_GRACE) : helper().stop(HELPER_STOP_GRACE);
  return stopped.then([this](HelperEnd end) { ended(end); });
}

void HelperLink::ended(const HelperEnd& end) {
  if (helperEnd != nullptr) *helperEnd = end;
  if (!faulted() && owesStream && !streamEnded()) {
    lose(kj::str("the ", name, " helper ", end.describe(), " before its event stream ended").cStr(),
         false);
  }
  if (fault) fault->end = end;
}

void HelperLink::lose(std::string reason, bool kill) {
  if (fault || complete) return;
  fault = HelperFault{kj::mv(reason), std::nullopt};
  KJ_IF_MAYBE (p, process_) {
    if (kill) (*p)->kill();
    KJ_IF_MAYBE (end, (*p)->end()) {
      fault->end = *end;
    }
  }
  // Ignore whatever the helper still sends.
  detachSink();
  lostFulfiller->fulfill();
  lost();
}

void HelperLink::violation(kj::StringPtr what) {
  lose(
      kj::str("the ", name, " helper sent a malformed message (", what, ") and was stopped").cStr(),
      true);
}

void HelperLink::callFailed(kj::StringPtr what, const kj::Exception& exception) {
  lose(kj::str("the ", name, " helper failed to ", what, ": ", exception.getDescription()).cStr(),
       exception.getType() != kj::Exception::Type::DISCONNECTED);
}

void HelperLink::linkFailed(const kj::Exception& exception) {
  // Background work failing is a bug of ours, not the helper's: keep the record honest.
  lose(kj::str("the ", name, " link failed: ", exception.getDescription()).cStr(), true);
}

void HelperLink::detachSink() {
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  sink = nullptr;
}

void HelperLink::sinkDropped() {
  sink = nullptr;
  if (!streamEnded() && !faulted() && !hangingUp) {
    // Either the connection is going (ended() will say how), or the helper dropped its sink
    // while alive, which breaks the protocol.
    tasks.add(timer().afterDelay(HELPER_STOP_GRACE).then([this]() {
      if (!faulted() && !streamEnded()) {
        violation(kj::str(sinkNoun, " sink dropped without done"));
      }
    }));
  }
}

void HelperLink::receive(kj::FunctionParam<kj::Maybe<BrokenRule>()> check) {
  if (faulted()) return;
  KJ_IF_MAYBE (broken, check()) {
    violation(broken->rule.c_str());
  }
}

HelperLink::SinkAnchor::~SinkAnchor() noexcept(false) {
  KJ_IF_MAYBE (l, link) {
    l->sinkDropped();
  }
}

}  // namespace rea::supervisor
