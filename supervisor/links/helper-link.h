#pragma once
// HelperLink: the lifecycle every link to a helper shares (pty-link, replay-link, shim-link,
// sampler-link, fswatch-link): it spawns the helper, bootstraps Cap'n Proto over its socketpair
// with the link's reader limit, owns the background tasks, the server end of its event stream
// (the sink), and the rules of losing it (A13): a loss is recorded once, in the link's own record,
// as a HelperFault naming the helper ("the pty helper ..."), and stops whatever the helper still
// sends; shutdown drops the connection and reaps the helper. Each link's Impl derives from it
// and keeps only its schema's calls and its checks.
//
// Only helper-link.c++ includes the RPC system (capnp/rpc-twoparty.h); a link's .c++ sees the
// bootstrap and job capabilities as capnp::Capability::Client and casts them to its schema.
//
// Errors: spawn() throws FAILED when the helper cannot be started; everything after is data (the
// fault) and no promise made here rejects.

#include <capnp/capability.h>
#include <kj/async-io.h>
#include <kj/debug.h>
#include <kj/function.h>
#include <kj/time.h>

#include <cstdint>
#include <optional>
#include <string>

#include "helpers/common/capnp-bytes.h"
#include "helpers/common/clock.h"
#include "supervisor/links/broken-rule.h"
#include "supervisor/links/helper-message.h"
#include "supervisor/links/helper-process.h"

namespace rea::supervisor {

constexpr kj::Duration HELPER_START_DEADLINE = 10 * kj::SECONDS;
// How long a helper may take to answer a start that only binds a port (replay, shim): silent for
// longer, it has stalled, and nothing else would end the capture (A13: rea ends within its
// deadline). 10 s: a sanitizer build starting three helpers at once on a loaded two-core machine
// (the test suite beside a headless browser) once needed more than 5 s.

using helper::bytesOf;  // the links fill Data fields from std::string

kj::ForkedPromise<void> newSignal(kj::Own<kj::PromiseFulfiller<void>>& fulfiller);
// A one-shot event: sets `fulfiller`, returns the promise that resolves when it is fulfilled.

template <typename T>
struct LinkRecord {
  // A link's record, held in a base class that each link's Impl lists before HelperLink: bases
  // are made in the order listed, so the record exists before HelperLink keeps references into
  // it (HelperLink::Record) and outlives HelperLink's destructor.
  T record;
};

class HelperLink : private kj::TaskSet::ErrorHandler {
 public:
  struct Record {
    // Where the link writes what it learns about its helper: fields of the link's own record
    // (a LinkRecord base of the derived Impl, made before HelperLink and destroyed after it).
    std::optional<HelperFault>& fault;
    const bool* streamDone = nullptr;  // the helper ended its stream with done(); null: no stream
    std::optional<HelperEnd>* helperEnd = nullptr;  // how the process ended; null: not recorded
  };

  HelperLink(kj::AsyncIoContext& io, kj::StringPtr name, std::string helperDirectory,
             Record record);
  // `name` ("pty") picks the binary (rea-<name> in `helperDirectory`) and names the helper in
  // every fault sentence.

  ~HelperLink() noexcept(false);
  // Drops the connection; a live helper is then SIGKILLed and reaped (~HelperProcess).

  KJ_DISALLOW_COPY(HelperLink);

  kj::AutoCloseFd execChannel;
  // Set before spawn() (pty, sampler): passed to the helper as fd 4 when the spawn asks for it,
  // and closed by spawn() either way (the helper has its own copy).

 protected:
  struct Spawn {
    bool passExecChannel = false;                            // fd 4 = execChannel
    uint64_t readerLimitWords = HELPER_MESSAGE_LIMIT_WORDS;  // one message's traversal limit
    bool watchEnd = true;      // an end while the link runs goes to ended() (else only shutDown)
    bool killOnHangUp = true;  // a helper that closed its connection gets HELPER_STOP_GRACE, then
                               // is killed (it is dying or confused)
    bool owesStream = false;   // streamOwed(true) from the helper's first moment (pty)
  };
  void spawn(Spawn options);
  // Spawns the helper and sends the RPC bootstrap. The bootstrap message waits in the socket
  // until the helper reads it, so nothing here waits for the helper's start-up. Throws FAILED
  // when the helper cannot be spawned (nothing is then running). Call once.

  void spawnEarly(Spawn options);
  // spawn() before the link knows what to start (so the helper's start-up overlaps the
  // caller's preparation), keeping a failure instead of throwing it: spawnForStart() throws it.

  void spawnForStart(Spawn options);
  // At start(): throws what spawnEarly() kept, spawns now if it did not run, and fails when a
  // helper spawned early has ended already (no answer to the start would come).

  bool spawned() const { return process_ != nullptr; }
  HelperProcess& helper() { return *KJ_ASSERT_NONNULL(process_); }
  kj::Maybe<HelperProcess&> process();
  kj::Maybe<const HelperProcess&> process() const;
  kj::Timer& timer() { return io.provider->getTimer(); }
  void addTask(kj::Promise<void> task) { tasks.add(kj::mv(task)); }

  template <typename Interface>
  typename Interface::Client bootstrap() {
    // The helper's bootstrap capability (after spawn(), before a loss dropped it).
    return KJ_ASSERT_NONNULL(bootstrap_).castAs<Interface>();
  }
  void dropBootstrap() { bootstrap_ = nullptr; }

  void setJob(capnp::Capability::Client job) { job_ = kj::mv(job); }
  bool hasJob() const { return job_ != nullptr; }
  template <typename Interface>
  typename Interface::Client job() {
    // The capability start answered with (hasJob()).
    return KJ_ASSERT_NONNULL(job_).castAs<Interface>();
  }

  template <typename Interface, typename Check, typename Into>
  kj::Own<typename Interface::Server> newSink(Check& check, Into& record);
  // The server end of the helper's event stream (Interface = schema::PtySink, ...): while the link
  // has no fault, push() and done() go to the stream's checks (`check.push(readParams, nowNs,
  // record)`, `check.done(readParams, record)`: *-batch.h), which return the broken rule (nullptr
  // when none): a broken rule is a violation(). Detached on a loss or shutdown; dropped by the
  // helper without done(), it is a violation after a grace. Call once, before sending it.

  void streamOwed(bool owed) { owesStream = owed; }

  // Whether the helper owes its event stream: an end before done() is then a loss ("the shim
  // helper crashed with signal 9 (SIGKILL) before its event stream ended").

  kj::StringPtr sinkNoun = "event";  // "event sink dropped without done"

  bool faulted() const { return fault != std::nullopt; }
  bool shuttingDown() const { return hangingUp; }

  void lose(std::string reason, bool kill);
  // Records the fault (once; never after jobComplete()), SIGKILLs the helper when `kill`, ignores
  // whatever it still sends, fulfils whenLost() and calls lost().
  void violation(kj::StringPtr what);
  // "the <name> helper sent a malformed message (<what>) and was stopped"
  void callFailed(kj::StringPtr what, const kj::Exception& exception);
  // A call `what` ("finish", "release an event") failed: "the <name> helper failed to <what>:
  // <description>"; killed unless it disconnected (it is dying by itself; killing it now would
  // hide how it ended).
  void linkFailed(const kj::Exception& exception);
  // Work of ours failed, not the helper: "the <name> link failed: <description>", killed.
  void jobComplete() { complete = true; }
  // The helper's work is done and accepted: nothing it does from now on is a loss.
  kj::Promise<void> whenLost() { return lostSignal.addBranch(); }

  template <typename T, typename Response, typename Accept>
  kj::Promise<T> startAnswer(kj::Promise<Response> answer, Accept accept, bool bounded);
  // Start's answer, passed to `accept`. A helper that answered with an error refused the launch
  // (it is ready, owes no stream, and the error is start's); one that disconnected died first.
  // When `bounded`, a helper silent for HELPER_START_DEADLINE is lost and start fails.

  bool finishing() const { return finishCalled; }
  template <typename Job>
  kj::Promise<void> finishJob(kj::Duration deadline);
  // Job.finish (unless lost or never started), then shutDown(). The helper sends done() before
  // finish's answer on the one connection: a finish without done is a violation. A failed call
  // is a loss; so is a helper that does not complete within `deadline` (killed). Resolves,
  // never rejects.

  void dropConnection();
  // Detaches the sink, drops the capabilities and the RPC system and hangs up: a helper whose
  // connection drops exits at once. Afterwards, loss by its end is no longer watched.
  kj::Promise<void> shutDown();
  // dropConnection(), then reaps the helper (a lost one first gets its grace to end by itself, so
  // its end says how) and passes its end to ended(). Resolves at once when nothing was spawned.

  virtual void lost() {}
  // After lose() recorded a fault.
  virtual void ended(const HelperEnd& end);
  // The helper ended (spawn's watch, or shutDown()). Records `end` in the record; with a fault,
  // as how the lost helper ended; else, when it owed its stream and did not end it, a loss.

 private:
  class SinkAnchor;
  template <typename Interface, typename Check, typename Into>
  class Sink;
  struct Rpc;

  kj::AsyncIoContext& io;
  kj::String name;
  std::string helperDirectory;
  std::optional<HelperFault>& fault;
  const bool* streamDone;
  std::optional<HelperEnd>* helperEnd;
  bool owesStream = false;
  bool hangingUp = false;  // we drop the connection ourselves
  bool complete = false;   // jobComplete()
  bool finishCalled = false;

  // Declaration order is teardown order, reversed: `process_` goes last (its destructor
  // SIGKILLs and reaps a live helper).
  kj::Maybe<kj::Own<HelperProcess>> process_;
  kj::Maybe<kj::Exception> earlySpawnFailure;  // what spawnEarly() could not do (spawnForStart)
  kj::Maybe<kj::Own<kj::AsyncIoStream>> connection;
  kj::Maybe<kj::Own<Rpc>> rpc;
  kj::Maybe<capnp::Capability::Client> bootstrap_;
  kj::Maybe<capnp::Capability::Client> job_;
  kj::Maybe<SinkAnchor&> sink;  // the server object the RPC system owns; detached on our death
  kj::Own<kj::PromiseFulfiller<void>> lostFulfiller;
  kj::ForkedPromise<void> lostSignal;
  kj::TaskSet tasks;  // last: destroyed first

  bool streamEnded() const { return streamDone != nullptr && *streamDone; }
  void detachSink();
  void sinkDropped();
  void receive(kj::FunctionParam<kj::Maybe<BrokenRule>()> check);
  kj::Promise<void> awaitFinish(kj::Maybe<kj::Promise<void>> call, kj::Duration deadline);
  void startRefused(const kj::Exception& exception);
  [[noreturn]] void startTimedOut();
  void taskFailed(kj::Exception&& exception) override { linkFailed(exception); }
};

// ---- templates -----------------------------------------------------------------------------

class HelperLink::SinkAnchor {
  // The part of a sink that is no template: its tie to the link.
 public:
  explicit SinkAnchor(HelperLink& link) : link(link) {}
  ~SinkAnchor() noexcept(false);  // tells the link (sinkDropped) unless detached
  KJ_DISALLOW_COPY(SinkAnchor);
  void detach() { link = nullptr; }

 protected:
  kj::Maybe<HelperLink&> link;
};

template <typename Interface, typename Check, typename Into>
class HelperLink::Sink final : public Interface::Server, public SinkAnchor {
 public:
  Sink(HelperLink& link, Check& check, Into& record)
      : SinkAnchor(link), check(check), record(record) {}

  // implements Interface::Server ----
  kj::Promise<void> push(typename Interface::Server::PushContext context) override {
    KJ_IF_MAYBE (l, link) {
      l->receive([&]() {
        return check.push([&]() { return context.getParams(); }, rea::helper::monotonicNowNs(),
                          record);
      });
    }
    return kj::READY_NOW;
  }
  kj::Promise<void> done(typename Interface::Server::DoneContext context) override {
    KJ_IF_MAYBE (l, link) {
      l->receive([&]() { return check.done([&]() { return context.getParams(); }, record); });
    }
    return kj::READY_NOW;
  }

 private:
  Check& check;
  Into& record;
};

template <typename Interface, typename Check, typename Into>
kj::Own<typename Interface::Server> HelperLink::newSink(Check& check, Into& record) {
  auto server = kj::heap<Sink<Interface, Check, Into>>(*this, check, record);
  sink = *server;
  return kj::mv(server);
}

template <typename T, typename Response, typename Accept>
kj::Promise<T> HelperLink::startAnswer(kj::Promise<Response> answer, Accept accept, bool bounded) {
  kj::Promise<T> answered = answer.then(kj::mv(accept), [this](kj::Exception&& exception) -> T {
    startRefused(exception);
    kj::throwFatalException(kj::mv(exception));
  });
  if (!bounded) return answered;
  return answered.exclusiveJoin(
      timer().afterDelay(HELPER_START_DEADLINE).then([this]() -> T { startTimedOut(); }));
}

template <typename Job>
kj::Promise<void> HelperLink::finishJob(kj::Duration deadline) {
  finishCalled = true;
  kj::Maybe<kj::Promise<void>> call;
  KJ_IF_MAYBE (j, job_) {
    if (!faulted()) call = j->castAs<Job>().finishRequest().send().ignoreResult();
  }
  return awaitFinish(kj::mv(call), deadline);
}

}  // namespace rea::supervisor
