#include "supervisor/links/pty-link.h"

#include <kj/debug.h>
#include <signal.h>

#include <utility>

#include "helpers/common/clock.h"
#include "schema/pty.capnp.h"
#include "supervisor/links/helper-link.h"
#include "supervisor/links/pty-batch.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

namespace {

// How long after the scenario deadline a silent helper is declared stalled: its watchdog kill
// and the exit report need well under a second even on a loaded machine.
const uint64_t DEADLINE_GRACE_NS = 3000000000ull;

void validateLaunch(const PtyLaunch& launch) {
  using evidence::limit::FRAMES;
  using evidence::limit::OUTPUT_BYTES;
  using evidence::terminal::COLUMNS;
  using evidence::terminal::ROWS;
  // The scenario parser enforces these already; repeated here so the helper gets nothing out of
  // range from us either (B §3.1, §3.2, §3.6).
  KJ_REQUIRE(!launch.executable.empty(), "executable is empty");
  KJ_REQUIRE(!launch.workingDirectory.empty(), "working directory is empty");
  KJ_REQUIRE(launch.arguments.size() <= 256, "too many arguments");
  KJ_REQUIRE(COLUMNS.contains(launch.columns), "columns out of range");
  KJ_REQUIRE(ROWS.contains(launch.rows), "rows out of range");
  KJ_REQUIRE(launch.events.size() <= 1000, "too many events");
  const PtyInteraction* previousTimed = nullptr;  // waiting events are ordered by position only
  for (size_t i = 0; i < launch.events.size(); ++i) {
    auto& event = launch.events[i];
    KJ_REQUIRE(event.waits || previousTimed == nullptr || previousTimed->atMs <= event.atMs,
               "events not sorted", i);
    if (!event.waits) previousTimed = &event;
    if (event.type == PtyInteraction::Type::RESIZE) {
      KJ_REQUIRE(COLUMNS.contains(event.columns) && ROWS.contains(event.rows),
                 "resize out of range", i);
    } else if (event.type == PtyInteraction::Type::SIGNAL) {
      KJ_REQUIRE(event.signal == SIGINT || event.signal == SIGTERM || event.signal == SIGKILL,
                 "signal not allowed", i, event.signal);
    }
  }
  KJ_REQUIRE(evidence::timing::TIMEOUT_MS.contains(launch.timeoutMs), "timeoutMs out of range");
  KJ_REQUIRE(evidence::timing::IDLE_TIMEOUT_MS.contains(launch.idleTimeoutMs),
             "idleTimeoutMs out of range");
  KJ_REQUIRE(launch.t0Ns > 0 && launch.t0Ns <= monotonicNowNs(), "t0Ns is not a past time");
  KJ_REQUIRE(FRAMES.contains(launch.maxFrames), "maxFrames out of range");
  KJ_REQUIRE(OUTPUT_BYTES.contains(launch.maxOutputBytes), "maxOutputBytes out of range");
  KJ_REQUIRE(evidence::terminal::SCROLLBACK.contains(launch.scrollback), "scrollback out of range");
  KJ_REQUIRE(FRAMES.contains(launch.renderMaxFrames), "renderMaxFrames out of range");
  KJ_REQUIRE(OUTPUT_BYTES.contains(launch.renderMaxBytes), "renderMaxBytes out of range");
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
}  // namespace

class PtyLink::Impl final : public LinkRecord<PtyRecord>, public HelperLink {
 public:
  Impl(kj::AsyncIoContext& io, std::string helperDirectory, kj::Maybe<PtyObserver&> observer)
      : HelperLink(io, "pty", kj::mv(helperDirectory),
                   {record.fault, &record.streamDone, &record.helperEnd}),
        observer(observer),
        exitKnown(newSignal(exitKnownFulfiller)) {}

  void spawnEarly();
  kj::Promise<PtySpawn> start(PtyLaunch launch);
  void release(uint32_t eventIndex, bool timedOut, bool stop);
  kj::Promise<std::optional<PtyExit>> whenExited();
  kj::Promise<void> finish(kj::Duration deadline);
  bool finished() const { return shutDownDone; }

  // The helper's event stream, as HelperLink::newSink checks it: the stream's own checks, with
  // the observer told and whenExited() resolved as events arrive. Each returns the rule broken.
  kj::Maybe<BrokenRule> push(kj::FunctionParam<schema::PtySink::PushParams::Reader()> readParams,
                             uint64_t nowNs, PtyRecord& record);
  kj::Maybe<BrokenRule> done(kj::FunctionParam<schema::PtySink::DoneParams::Reader()> readParams,
                             PtyRecord& record);

 private:
  kj::Maybe<PtyObserver&> observer;
  PtyLaunch launch;

  bool started = false;
  bool shutDownDone = false;             // finish() resolved: the record is complete
  std::optional<PtyStreamCheck> stream;  // checks what the helper sends (set by start)

  kj::Own<kj::PromiseFulfiller<void>> exitKnownFulfiller;
  kj::ForkedPromise<void> exitKnown;  // the exit arrived, or the helper was lost

  kj::Promise<PtySpawn> startHelper(PtyLaunch launch);
  static Spawn helperSpawn();
  void armDeadline();
  void lost() override;
};

kj::Promise<PtySpawn> PtyLink::Impl::start(PtyLaunch launchIn) {
  KJ_REQUIRE(!started, "PtyLink::start called twice");  // a bug of the caller: thrown at once
  return kj::evalNow([&]() { return startHelper(kj::mv(launchIn)); })
      .catch_([this](kj::Exception&& exception) -> PtySpawn {
        exitKnownFulfiller->fulfill();  // there will be no exit: whenExited() must not hang
        kj::throwFatalException(kj::mv(exception));
      });
}

void PtyLink::Impl::spawnEarly() {
  KJ_REQUIRE(!started, "PtyLink::spawnEarly after start");
  HelperLink::spawnEarly(helperSpawn());
}

HelperLink::Spawn PtyLink::Impl::helperSpawn() {
  Spawn options;
  options.passExecChannel = true;
  options.owesStream = true;  // from its first moment: an end before done() is a loss
  return options;
}

kj::Promise<PtySpawn> PtyLink::Impl::startHelper(PtyLaunch launchIn) {
  started = true;
  validateLaunch(launchIn);
  launch = kj::mv(launchIn);
  stream.emplace(launch);

  spawnForStart(helperSpawn());
  armDeadline();

  auto sinkServer = newSink<schema::PtySink>(*this, record);
  auto request = bootstrap<schema::Pty>().startRequest();
  fillConfig(launch, request.initConfig());
  request.setSink(kj::mv(sinkServer));
  using Response = capnp::Response<schema::Pty::StartResults>;
  return startAnswer<PtySpawn>(
      request.send(),
      [this](Response&& response) -> PtySpawn {
        helper().markReady();
        PtySpawn spawn;
        spawn.rootPid = pid_t(response.getRootPid());
        spawn.atNs = response.getSpawnedAtNs();
        if (spawn.rootPid <= 0 || spawn.atNs < launch.t0Ns || spawn.atNs > monotonicNowNs()) {
          violation("start answered an impossible root pid or spawn time");
          KJ_FAIL_REQUIRE("the pty helper answered start with an invalid spawn");
        }
        setJob(response.getJob());
        record.spawn = spawn;
        return spawn;
      },
      false);
}

void PtyLink::Impl::release(uint32_t eventIndex, bool timedOut, bool stop) {
  if (record.fault || finishing() || !hasJob()) return;
  auto request = job<schema::PtyJob>().releaseRequest();
  request.setEventIndex(eventIndex);
  request.setTimedOut(timedOut);
  request.setStop(stop);
  addTask(request.send().ignoreResult().catch_([this](kj::Exception&& exception) {
    if (!record.fault && !shuttingDown()) callFailed("release an event", exception);
  }));
}

kj::Promise<std::optional<PtyExit>> PtyLink::Impl::whenExited() {
  return exitKnown.addBranch().then([this]() { return record.exit; });
}

kj::Promise<void> PtyLink::Impl::finish(kj::Duration deadline) {
  KJ_REQUIRE(!finishing(), "PtyLink::finish called twice");
  return finishJob<schema::PtyJob>(deadline).then([this]() { shutDownDone = true; });
}

void PtyLink::Impl::lost() {
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
  addTask(timer().afterDelay(waitNs * kj::NANOSECONDS).then([this]() {
    if (!record.exit && !record.fault) {
      lose("the pty helper stopped answering (no exit report by the scenario deadline)", true);
    }
  }));
}

kj::Maybe<BrokenRule> PtyLink::Impl::push(
    kj::FunctionParam<schema::PtySink::PushParams::Reader()> readParams, uint64_t nowNs,
    PtyRecord& into) {
  bool exitBefore = bool(into.exit);
  auto broken = stream->push(readParams, nowNs, into, observer);
  if (!exitBefore && into.exit) exitKnownFulfiller->fulfill();
  return broken;
}

kj::Maybe<BrokenRule> PtyLink::Impl::done(
    kj::FunctionParam<schema::PtySink::DoneParams::Reader()> readParams, PtyRecord& into) {
  return stream->done(readParams, into);
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
