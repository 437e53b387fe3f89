#include "supervisor/pty-link.h"

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include <utility>

#include "helpers/common/clock.h"
#include "schema/pty.capnp.h"
#include "supervisor/pty-batch.h"
#include "supervisor/helper-message.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

namespace {

// How long after the scenario deadline a silent helper is declared stalled: its watchdog kill
// and the exit report need well under a second even on a loaded machine.
const uint64_t DEADLINE_GRACE_NS = 3000000000ull;

kj::ArrayPtr<const kj::byte> bytesOf(const std::string& text) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text.data()), text.size());
}

void validateLaunch(const PtyLaunch& launch) {
  // The scenario parser enforces these already; repeated here so the helper gets nothing out of
  // range from us either (B §3.1, §3.2, §3.6).
  KJ_REQUIRE(!launch.executable.empty(), "executable is empty");
  KJ_REQUIRE(!launch.workingDirectory.empty(), "working directory is empty");
  KJ_REQUIRE(launch.arguments.size() <= 256, "too many arguments");
  KJ_REQUIRE(launch.columns >= 1 && launch.columns <= 1000, "columns out of range");
  KJ_REQUIRE(launch.rows >= 1 && launch.rows <= 1000, "rows out of range");
  KJ_REQUIRE(launch.events.size() <= 1000, "too many events");
  const PtyInteraction* previousTimed = nullptr;  // waiting events are ordered by position only
  for (size_t i = 0; i < launch.events.size(); ++i) {
    auto& event = launch.events[i];
    KJ_REQUIRE(event.waits || previousTimed == nullptr || previousTimed->atMs <= event.atMs,
               "events not sorted", i);
    if (!event.waits) previousTimed = &event;
    if (event.type == PtyInteraction::Type::RESIZE) {
      KJ_REQUIRE(
          event.columns >= 1 && event.columns <= 1000 && event.rows >= 1 && event.rows <= 1000,
          "resize out of range", i);
    } else if (event.type == PtyInteraction::Type::SIGNAL) {
      KJ_REQUIRE(event.signal == SIGINT || event.signal == SIGTERM || event.signal == SIGKILL,
                 "signal not allowed", i, event.signal);
    }
  }
  KJ_REQUIRE(launch.timeoutMs >= 1 && launch.timeoutMs <= 300000, "timeoutMs out of range");
  KJ_REQUIRE(launch.idleTimeoutMs >= 1 && launch.idleTimeoutMs <= 300000,
             "idleTimeoutMs out of range");
  KJ_REQUIRE(launch.t0Ns > 0 && launch.t0Ns <= monotonicNowNs(), "t0Ns is not a past time");
  KJ_REQUIRE(launch.maxFrames >= 1 && launch.maxFrames <= 100000, "maxFrames out of range");
  KJ_REQUIRE(launch.maxOutputBytes >= 1 && launch.maxOutputBytes <= 10000000,
             "maxOutputBytes out of range");
  KJ_REQUIRE(launch.scrollback <= 100000, "scrollback out of range");
  KJ_REQUIRE(launch.renderMaxFrames >= 1 && launch.renderMaxFrames <= 100000,
             "renderMaxFrames out of range");
  KJ_REQUIRE(launch.renderMaxBytes >= 1 && launch.renderMaxBytes <= 10000000,
             "renderMaxBytes out of range");
}

void fillConfig(const PtyLaunch& launch, schema::PtyConfig::Builder config) {
  config.setExecutable(bytesOf(launch.executable));
  auto arguments = config.initArguments(launch.arguments.size());
  for (size_t i = 0; i < launch.arguments.size(); ++i) {
    arguments.set(i, bytesOf(launch.arguments[i]));
  }
  config.setWorkingDirectory(bytesOf(launch.workingDirectory));
  config.setExecutableObject(bytesOf(launch.executableObject));
  auto environment = config.initEnvironment(launch.environment.size());
  for (size_t i = 0; i < launch.environment.size(); ++i) {
    environment.set(i, bytesOf(launch.environment[i]));
  }
  config.setColumns(launch.columns);
  config.setRows(launch.rows);
  auto events = config.initEvents(launch.events.size());
  for (size_t i = 0; i < launch.events.size(); ++i) {
    auto& from = launch.events[i];
    auto to = events[i];
    to.setAtMs(from.atMs);
    to.setWaits(from.waits);
    to.setWaitsForExit(from.waits && from.waitsForExit);
    switch (from.type) {
      case PtyInteraction::Type::INPUT:
        to.setInput(bytesOf(from.data));
        break;
      case PtyInteraction::Type::RESIZE: {
        auto size = to.initResize();
        size.setColumns(from.columns);
        size.setRows(from.rows);
        break;
      }
      case PtyInteraction::Type::SIGNAL:
        to.setSignal(from.signal);
        break;
    }
  }
  config.setTimeoutMs(launch.timeoutMs);
  config.setIdleTimeoutMs(launch.idleTimeoutMs);
  config.setT0Ns(launch.t0Ns);
  config.setMaxFrames(launch.maxFrames);
  config.setMaxOutputBytes(launch.maxOutputBytes);
  if (!launch.netnsPath.empty()) {
    auto network = config.initNetwork();
    network.setNet(bytesOf(launch.netnsPath));
    network.setUser(bytesOf(launch.usernsPath));
  }
  config.setScrollback(launch.scrollback);
  config.setRenderMaxFrames(launch.renderMaxFrames);
  config.setRenderMaxBytes(launch.renderMaxBytes);
  config.setCgroupPath(bytesOf(launch.cgroupPath));
  config.setPidsGroupPath(bytesOf(launch.pidsGroupPath));
  config.setExecNotify(launch.execNotify);
}

kj::ForkedPromise<void> makeSignal(kj::Own<kj::PromiseFulfiller<void>>& fulfiller) {
  auto paf = kj::newPromiseAndFulfiller<void>();
  fulfiller = kj::mv(paf.fulfiller);
  return paf.promise.fork();
}

}  // namespace

class PtyLink::Impl final : private kj::TaskSet::ErrorHandler {
 public:
  Impl(kj::AsyncIoContext& io, std::string helperDirectory, kj::Maybe<PtyObserver&> observer)
      : io(io),
        helperDirectory(kj::mv(helperDirectory)),
        observer(observer),
        exitKnown(makeSignal(exitKnownFulfiller)),
        tasks(*this) {}

  ~Impl() noexcept(false);

  void spawnEarly();
  kj::AutoCloseFd execChannel;
  kj::Promise<PtySpawn> start(PtyLaunch launch);
  kj::Promise<PtySpawn> startHelper(PtyLaunch launch);
  void release(uint32_t eventIndex, bool timedOut, bool stop);
  kj::Promise<std::optional<PtyExit>> whenExited();
  kj::Promise<void> finish(kj::Duration deadline);
  bool finished() const { return shutDownDone; }

  PtyRecord record;

  // Called by the sink (the helper's side of the stream) -------------------------------

  void push(kj::FunctionParam<schema::PtySink::PushParams::Reader()> readParams);
  void done(kj::FunctionParam<schema::PtySink::DoneParams::Reader()> readParams);
  void sinkDropped();

 private:
  class Sink;

  kj::AsyncIoContext& io;
  std::string helperDirectory;
  kj::Maybe<PtyObserver&> observer;
  PtyLaunch launch;

  kj::Maybe<kj::Own<HelperProcess>> process;
  kj::Maybe<kj::Own<kj::AsyncIoStream>> connection;
  kj::Maybe<kj::Own<capnp::TwoPartyVatNetwork>> network;
  kj::Maybe<kj::Own<capnp::RpcSystem<capnp::rpc::twoparty::VatId>>> rpc;
  kj::Maybe<schema::Pty::Client> bootstrap;
  kj::Maybe<schema::PtyJob::Client> job;
  kj::Maybe<Sink&> sink;  // the server object the RPC system owns; it detaches on our death

  bool started = false;
  kj::Maybe<kj::Exception> spawnFailure;  // spawnEarly() could not start the helper
  bool finishCalled = false;
  bool shuttingDown = false;             // we dropped the connection ourselves
  bool shutDownDone = false;             // finish() resolved: the record is complete
  bool launchRefused = false;            // start() answered with an error: no stream was ever owed
  std::optional<PtyStreamCheck> stream;  // checks what the helper sends (set by start)

  kj::Own<kj::PromiseFulfiller<void>> exitKnownFulfiller;
  kj::ForkedPromise<void> exitKnown;  // the exit arrived, or the helper was lost
  kj::TaskSet tasks;                  // last: destroyed first

  HelperProcess& helper() { return *KJ_ASSERT_NONNULL(process); }
  void spawnHelper();
  void violation(kj::StringPtr what);
  void lose(std::string reason, bool kill);
  void armDeadline();
  void helperEnded(const HelperEnd& end);
  kj::Promise<void> shutDown();
  void taskFailed(kj::Exception&& exception) override {
    // Background work failing is a bug of ours, not the helper's: keep the record honest.
    lose(std::string("the pty link failed: ") + exception.getDescription().cStr(), true);
  }
};

class PtyLink::Impl::Sink final : public schema::PtySink::Server {
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

PtyLink::Impl::~Impl() noexcept(false) {
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

kj::Promise<PtySpawn> PtyLink::Impl::start(PtyLaunch launchIn) {
  KJ_REQUIRE(!started, "PtyLink::start called twice");  // a bug of the caller: thrown at once
  return kj::evalNow([&]() { return startHelper(kj::mv(launchIn)); })
      .catch_([this](kj::Exception&& exception) -> PtySpawn {
        exitKnownFulfiller->fulfill();  // there will be no exit: whenExited() must not hang
        kj::throwFatalException(kj::mv(exception));
      });
}

void PtyLink::Impl::spawnEarly() {
  KJ_REQUIRE(!started && process == nullptr, "PtyLink::spawnEarly after start");
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([this]() { spawnHelper(); })) {
    spawnFailure = kj::mv(*e);  // start() rejects with it, as if it had spawned the helper
  }
}

void PtyLink::Impl::spawnHelper() {
  // The process and its RPC bootstrap; the bootstrap message waits in the socket until the
  // helper reads it, so nothing here waits for the helper's start-up.
  auto path = kj::str(helperDirectory.c_str(), "/rea-pty");
  auto channel = kj::mv(execChannel);  // closed when this returns: the helper has a copy
  process = HelperProcess::spawn(io, "pty", path, nullptr, channel.get());
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
  bootstrap = KJ_ASSERT_NONNULL(rpc)->bootstrap(vatId).castAs<schema::Pty>();
  tasks.add(vatNetwork.onDisconnect().then(
      [this]() {
        if (shuttingDown || record.fault) return kj::Promise<void>(kj::READY_NOW);
        // The helper closed its end (it is dying or confused): give it a moment to exit, then
        // make sure; helperEnded() reports how it ended.
        return io.provider->getTimer().afterDelay(HELPER_STOP_GRACE).then([this]() {
          if (helper().end() == nullptr) helper().kill();
        });
      },
      [](kj::Exception&&) {
        // The network was destroyed by shutDown(): nothing to watch any more.
        return kj::Promise<void>(kj::READY_NOW);
      }));
}

kj::Promise<PtySpawn> PtyLink::Impl::startHelper(PtyLaunch launchIn) {
  started = true;
  validateLaunch(launchIn);
  launch = kj::mv(launchIn);
  stream.emplace(launch);

  KJ_IF_MAYBE (e, spawnFailure) {
    kj::throwFatalException(kj::mv(*e));
  }
  if (process == nullptr) spawnHelper();
  armDeadline();
  KJ_IF_MAYBE (end, helper().end()) {
    // Spawned early and already gone: no answer will come (helperEnded() said how).
    KJ_FAIL_REQUIRE("the pty helper ended before its launch", end->describe());
  }

  auto sinkServer = kj::heap<Sink>(*this);
  sink = *sinkServer;
  auto request = KJ_ASSERT_NONNULL(bootstrap).startRequest();
  fillConfig(launch, request.initConfig());
  request.setSink(kj::mv(sinkServer));
  return request.send().then(
      [this](capnp::Response<schema::Pty::StartResults>&& response) -> PtySpawn {
        helper().markReady();
        PtySpawn spawn;
        spawn.rootPid = pid_t(response.getRootPid());
        spawn.atNs = response.getSpawnedAtNs();
        if (spawn.rootPid <= 0 || spawn.atNs < launch.t0Ns || spawn.atNs > monotonicNowNs()) {
          violation("start answered an impossible root pid or spawn time");
          KJ_FAIL_REQUIRE("the pty helper answered start with an invalid spawn");
        }
        job = response.getJob();
        record.spawn = spawn;
        return spawn;
      },
      [this](kj::Exception&& exception) -> PtySpawn {
        if (exception.getType() != kj::Exception::Type::DISCONNECTED) {
          helper().markReady();  // it answered: the launch itself failed
          launchRefused = true;
        }
        kj::throwFatalException(kj::mv(exception));
      });
}

void PtyLink::Impl::release(uint32_t eventIndex, bool timedOut, bool stop) {
  if (record.fault || finishCalled) return;
  KJ_IF_MAYBE (j, job) {
    auto request = j->releaseRequest();
    request.setEventIndex(eventIndex);
    request.setTimedOut(timedOut);
    request.setStop(stop);
    tasks.add(request.send().ignoreResult().catch_([this](kj::Exception&& exception) {
      if (!record.fault && !shuttingDown) {
        lose(std::string("the pty helper failed to release an event: ") +
                 exception.getDescription().cStr(),
             exception.getType() != kj::Exception::Type::DISCONNECTED);
      }
    }));
  }
}

kj::Promise<std::optional<PtyExit>> PtyLink::Impl::whenExited() {
  return exitKnown.addBranch().then([this]() { return record.exit; });
}

kj::Promise<void> PtyLink::Impl::finish(kj::Duration deadline) {
  KJ_REQUIRE(!finishCalled, "PtyLink::finish called twice");
  finishCalled = true;
  kj::Promise<void> finished = kj::READY_NOW;
  KJ_IF_MAYBE (j, job) {
    if (!record.fault) {
      finished = j->finishRequest()
                     .send()
                     .ignoreResult()
                     .then(
                         [this]() {
                           // The helper awaits done() before finish returns, and both travel
                           // on one connection in order: done must be here.
                           if (!record.streamDone) violation("finish returned before done");
                         },
                         [this](kj::Exception&& exception) {
                           if (!record.fault && !record.streamDone) {
                             // Disconnected: it is dying by itself; killing it now
                             // would hide how it ended (the sentence says that).
                             lose(std::string("the pty helper failed to finish: ") +
                                      exception.getDescription().cStr(),
                                  exception.getType() != kj::Exception::Type::DISCONNECTED);
                           }
                         })
                     .exclusiveJoin(io.provider->getTimer().afterDelay(deadline).then(
                         [this]() { lose("the pty helper did not finish in time", true); }));
    }
  }
  return finished.then([this]() { return shutDown(); }).then([this]() { shutDownDone = true; });
}

kj::Promise<void> PtyLink::Impl::shutDown() {
  if (process == nullptr) return kj::READY_NOW;  // start() failed before spawning
  shuttingDown = true;
  // Drop the connection: a helper whose connection drops exits at once.
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

void PtyLink::Impl::helperEnded(const HelperEnd& end) {
  record.helperEnd = end;
  if (record.fault) {
    record.fault->end = end;
  } else if (!record.streamDone && !launchRefused) {
    // Lost before its stream ended. (A helper that refused the launch owed no stream.)
    lose("the pty helper " + end.describe() + " before its event stream ended", false);
    record.fault->end = end;
  }
}

void PtyLink::Impl::lose(std::string reason, bool kill) {
  if (record.fault) return;
  record.fault = HelperFault{kj::mv(reason), std::nullopt};
  KJ_IF_MAYBE (p, process) {
    if (kill) (*p)->kill();
    KJ_IF_MAYBE (end, (*p)->end()) {
      record.fault->end = *end;
    }
  }
  // Ignore whatever the helper still sends.
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  sink = nullptr;
  exitKnownFulfiller->fulfill();
  KJ_IF_MAYBE (o, observer) {
    o->lost(*record.fault);
  }
}

void PtyLink::Impl::armDeadline() {
  // The helper's own watchdog ends the root by timeoutMs; a helper that stopped answering
  // cannot, and rea must still end within the scenario's deadline plus a few seconds (A13).
  uint64_t deadlineNs = launch.t0Ns + launch.timeoutMs * 1000000 + DEADLINE_GRACE_NS;
  uint64_t nowNs = monotonicNowNs();
  uint64_t waitNs = deadlineNs > nowNs ? deadlineNs - nowNs : 0;
  tasks.add(io.provider->getTimer().afterDelay(waitNs * kj::NANOSECONDS).then([this]() {
    if (!record.exit && !record.fault) {
      lose("the pty helper stopped answering (no exit report by the scenario deadline)", true);
    }
  }));
}

void PtyLink::Impl::violation(kj::StringPtr what) {
  lose(std::string("the pty helper sent a malformed message (") + what.cStr() + ") and was stopped",
       true);
}

void PtyLink::Impl::sinkDropped() {
  sink = nullptr;
  if (!record.streamDone && !record.fault && !shuttingDown) {
    // Either the connection is going (helperEnded() will say how), or the helper dropped its
    // sink while alive, which breaks the protocol.
    tasks.add(io.provider->getTimer().afterDelay(HELPER_STOP_GRACE).then([this]() {
      if (!record.fault && !record.streamDone) violation("event sink dropped without done");
    }));
  }
}

void PtyLink::Impl::push(kj::FunctionParam<schema::PtySink::PushParams::Reader()> readParams) {
  if (record.fault) return;
  bool exitBefore = bool(record.exit);
  auto broken = stream->push(readParams, monotonicNowNs(), record, observer);
  if (!exitBefore && record.exit) exitKnownFulfiller->fulfill();
  KJ_IF_MAYBE (b, broken) {
    violation(b->rule.c_str());
  }
}

void PtyLink::Impl::done(kj::FunctionParam<schema::PtySink::DoneParams::Reader()> readParams) {
  if (record.fault) return;
  KJ_IF_MAYBE (broken, stream->done(readParams, record)) {
    violation(broken->rule.c_str());
  }
}

// ---- PtyLink ---------------------------------------------------------------------------

PtyLink::PtyLink(kj::AsyncIoContext& io, std::string helperDirectory,
                 kj::Maybe<PtyObserver&> observer)
    : impl(kj::heap<Impl>(io, kj::mv(helperDirectory), observer)) {}

PtyLink::~PtyLink() noexcept(false) {}

void PtyLink::setExecChannel(kj::AutoCloseFd channel) {
  impl->execChannel = kj::mv(channel);
}

void PtyLink::spawnEarly() {
  impl->spawnEarly();
}

kj::Promise<PtySpawn> PtyLink::start(PtyLaunch launch) {
  return impl->start(kj::mv(launch));
}

kj::Promise<std::optional<PtyExit>> PtyLink::whenExited() {
  return impl->whenExited();
}

void PtyLink::release(uint32_t eventIndex, bool timedOut, bool stop) {
  impl->release(eventIndex, timedOut, stop);
}

kj::Promise<void> PtyLink::finish(kj::Duration deadline) {
  return impl->finish(deadline);
}

const PtyRecord& PtyLink::record() const {
  return impl->record;
}

PtyRecord PtyLink::takeRecord() {
  KJ_REQUIRE(impl->finished(), "PtyLink::takeRecord before finish() resolved");
  return std::exchange(impl->record, PtyRecord());
}

}  // namespace rea::supervisor
