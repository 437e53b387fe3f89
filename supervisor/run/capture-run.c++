#include "supervisor/run/capture-run.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include <cstdlib>

#include <kj/debug.h>

#include "helpers/common/clock.h"
#include "supervisor/run/run-token.h"
#include "supervisor/run/shim-run.h"
#include "supervisor/run/stale-cgroups.h"
#include "supervisor/run/target-environment.h"
#include "supervisor/run/temp-root.h"

namespace rea::supervisor {
namespace {

struct CaptureState final : public CaptureHelpers {
  CaptureRunRequest request;
  kj::Maybe<CaptureProgress&> progress;
  TempRoot root;
  CaptureRunResult result;
  kj::Own<CheckpointDriver> checkpoints;    // before `pty`: it outlives the link it observes
  kj::Own<InteractionDriver> interactions;  // likewise; null when no event waits
  kj::Own<PtyObserverFanOut> ptyObservers;  // checkpoints, then the progress line
  // Before `pty`, so destroyed after it: a dropped capture loses the pty helper (its root dies
  // with it) first, then the sampler link cleans up what the capture owns (sampler-link.h).
  kj::Own<SamplerLink> sampler;
  kj::Own<PtyLink> pty;
  kj::Own<ShimRun> shims;
  kj::Own<ReplayLink> replay;              // before T0 when request.replay is set
  std::optional<ReplayStart> replayStart;  // its URLs and namespace

  CaptureState(CaptureRunRequest request, kj::Maybe<CaptureProgress&> progress,
               kj::Own<CheckpointDriver> checkpoints)
      : request(std::move(request)), progress(progress), checkpoints(kj::mv(checkpoints)) {}

  void phase(CapturePhase next) {
    KJ_IF_MAYBE (p, progress) {
      p->phase(next);
    }
  }

  void noteLost(const char* helper, const HelperFault& fault) {
    for (const auto& lost : result.lostHelpers) {
      if (lost.helper == helper) return;
    }
    result.lostHelpers.push_back({helper, fault.sentence()});
  }

  void noteCleanupFailure(const std::string& reason) {
    if (!result.cleanupFailure) result.cleanupFailure = reason;
  }
};

PtyLaunch makeLaunch(const CaptureState& state, std::vector<std::string> environment) {
  const auto& request = state.request;
  PtyLaunch launch;
  launch.executable = request.executable;
  launch.arguments = request.arguments;
  launch.workingDirectory = request.workingDirectory;
  launch.executableObject = request.executableObject;
  launch.environment = std::move(environment);
  launch.columns = request.columns;
  launch.rows = request.rows;
  launch.events = request.events;
  launch.timeoutMs = request.timeoutMs;
  launch.idleTimeoutMs = request.idleTimeoutMs;
  launch.t0Ns = state.result.t0MonoNs;
  launch.maxFrames = request.maxFrames;
  launch.maxOutputBytes = request.maxOutputBytes;
  if (state.replayStart && state.replayStart->netnsPath) {
    launch.netnsPath = *state.replayStart->netnsPath;
    launch.usernsPath = state.replayStart->usernsPath.value_or("");
  }
  // B §6.11: the rendered budget uses the raw limits' values, counted apart.
  launch.scrollback = request.scrollback;
  launch.renderMaxFrames = request.maxFrames;
  launch.renderMaxBytes = request.maxOutputBytes;
  return launch;
}

}  // namespace

int64_t wallClockMs() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

namespace {

// The helpers every capture needs, started first: the target must be born inside the
// sampler's capture cgroup (A8) and in the pty helper's terminal, so their start-up and the
// sampler's prepare are the critical path of a capture's start. They run while rea cleans up
// after earlier captures and takes the BEFORE snapshot. (The pty helper creates no terminal
// before start() sends the launch, after T0.) The shim helper, when shims are declared, is
// spawned with them for the same reason; its ledger starts at T0.
struct EarlyHelpers {
  std::string runToken;
  kj::Own<SamplerLink> sampler;
  kj::Promise<SamplerPrepared> prepared;
  kj::Own<InteractionDriver> interactions;  // null when no event waits
  kj::Own<PtyObserverFanOut> ptyObservers;  // checkpoints, then the progress line
  kj::Own<ShimRun> shims;                   // spawned early too when shims are declared
  kj::Own<PtyLink> pty;                     // last: destroyed first (sampler-link.h)
};

kj::Promise<CaptureRunResult> runAfterBefore(kj::AsyncIoContext& io, CaptureRunRequest request,
                                             kj::Maybe<CaptureProgress&> progress,
                                             kj::Own<CheckpointDriver> checkpoints,
                                             EarlyHelpers early);

}  // namespace

kj::Promise<CaptureRunResult> runCapture(kj::AsyncIoContext& io, CaptureRunRequest request,
                                         kj::Maybe<CaptureProgress&> progress) {
  auto checkpoints = kj::heap<CheckpointDriver>(io, request.filesystem);
  EarlyHelpers early{newRunToken(),
                     kj::heap<SamplerLink>(io),
                     nullptr,
                     kj::Own<InteractionDriver>(),
                     kj::heap<PtyObserverFanOut>(),
                     kj::heap<ShimRun>(io, request.commandShims, request.protocolEvents),
                     kj::Own<PtyLink>()};
  // The exec channel (helpers/common/exec-channel.h): one end to each helper, none kept here.
  int channel[2] = {-1, -1};
  if (request.execNotify && !request.forceSampled &&
      socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) == 0) {
    early.sampler->setExecChannel(kj::AutoCloseFd(channel[0]));
  }
  kj::AutoCloseFd ptyChannel(channel[1]);
  early.prepared = early.sampler->prepare({early.runToken, request.maxProcesses,
                                           request.forceSampled, channel[0] >= 0, request.maxPids});
  early.ptyObservers->add(*checkpoints);
  if (planWaits(request.interactions)) {
    early.interactions = kj::heap<InteractionDriver>(io, request.interactions);
    early.ptyObservers->add(*early.interactions);
    auto& interactions = *early.interactions;
    checkpoints->onTriggered(
        [&interactions](const std::string& name) { interactions.checkpointTriggered(name); });
  }
  KJ_IF_MAYBE (p, progress) {
    early.ptyObservers->add(*p);
  }
  early.pty = kj::heap<PtyLink>(io, defaultHelperDirectory(), *early.ptyObservers);
  early.pty->setExecChannel(kj::mv(ptyChannel));
  early.pty->spawnEarly();
  early.shims->spawnEarly();
  if (early.interactions) early.interactions->attach(*early.pty);
  // Roots and capture cgroups left by a rea that was SIGKILLed (no live owner) go first. Ours
  // are not mistaken for them: the sampler marks its group with our identity as it makes it,
  // and the temp root is made below.
  findStaleTempRoots(/*remove=*/true);
  findStaleCaptureCgroups(/*remove=*/true);
  // B §6.1 PREPARE: BEFORE := snapshot(filesystem_roots), before the temp root exists. A
  // snapshot that cannot read an entry ends the capture here (no temp root, no target; the
  // capture cgroup is cleaned up once the sampler has answered).
  auto before = checkpoints->takeBefore();
  return before.then([&io, request = std::move(request), progress,
                      checkpoints = kj::mv(checkpoints),
                      early = kj::mv(early)]() mutable -> kj::Promise<CaptureRunResult> {
    if (checkpoints->failed()) {
      early.pty = nullptr;  // idle: no target was started
      auto& sampler = *early.sampler;
      auto finished = checkpoints->finish()
                          .then([prepared = kj::mv(early.prepared)]() mutable {
                            return prepared.ignoreResult();
                          })
                          .then([&sampler]() { return sampler.cleanup().ignoreResult(); });
      return finished.then([checkpoints = kj::mv(checkpoints), early = kj::mv(early)]() {
        CaptureRunResult result;
        result.filesystem = checkpoints->record();
        return result;
      });
    }
    return runAfterBefore(io, std::move(request), progress, kj::mv(checkpoints), kj::mv(early));
  });
}

namespace {

kj::Promise<CaptureRunResult> runAfterBefore(kj::AsyncIoContext& io, CaptureRunRequest request,
                                             kj::Maybe<CaptureProgress&> progress,
                                             kj::Own<CheckpointDriver> checkpoints,
                                             EarlyHelpers early) {
  auto state = kj::heap<CaptureState>(std::move(request), progress, kj::mv(checkpoints));
  auto& s = *state;
  s.interactions = kj::mv(early.interactions);
  s.ptyObservers = kj::mv(early.ptyObservers);
  s.sampler = kj::mv(early.sampler);
  s.pty = kj::mv(early.pty);
  s.shims = kj::mv(early.shims);
  s.result.tempRoot = s.root.path();
  s.result.runToken = early.runToken;
  // B §6.2: TMP/shims is first on the target's PATH; it exists even when no shim is declared.
  KJ_SYSCALL(mkdir(s.root.shimsPath().c_str(), 0700), s.root.shimsPath());

  // B §6.1 START: the replay server listens first (in the loopback namespace it makes, A9).
  kj::Promise<void> replayReady = kj::READY_NOW;
  if (s.request.replay) {
    s.replay = kj::heap<ReplayLink>(io);
    replayReady = s.replay->start(*s.request.replay).then([&s](ReplayStart start) {
      s.replayStart = std::move(start);
    });
  }

  return replayReady
      .then([prepared = kj::mv(early.prepared)]() mutable { return kj::mv(prepared); })
      .then([&s](SamplerPrepared prepared) {
        TargetEnvironmentInputs inputs;
        inputs.explicitEntries = s.request.environment;
        inputs.inheritNames = s.request.inheritEnvironment;
        inputs.homePath = s.root.homePath();
        inputs.shimsPath = s.root.shimsPath();
        inputs.runToken = s.result.runToken;
        if (s.replayStart) {
          inputs.replayHttpUrl = s.replayStart->httpUrl;
          inputs.replayWebSocketUrl = s.replayStart->websocketUrl;
        }

        // T0 (B §4.5): right before the terminal, the shim ledger and the PTY are created.
        s.result.t0RealMs = wallClockMs();
        s.result.t0MonoNs = helper::monotonicNowNs();
        s.checkpoints->start(s.result.t0MonoNs, s.result.tempRoot, prepared.cgroupPath);
        std::string netns, userns;
        if (s.replayStart && s.replayStart->netnsPath) {
          netns = *s.replayStart->netnsPath;
          userns = s.replayStart->usernsPath.value_or("");
        }
        return s.shims->start(s.result.t0MonoNs, s.root.shimsPath(), netns, userns)
            .then([&s, inputs, cgroupPath = prepared.cgroupPath,
                   pidsGroupPath = prepared.pidsGroupPath,
                   execNotify = prepared.execNotify](std::optional<std::string> ledgerUrl) mutable {
              inputs.shimLedgerUrl = std::move(ledgerUrl);
              auto environment = composeTargetEnvironment(
                  inputs, [](const std::string& name) -> std::optional<std::string> {
                    const char* value = getenv(name.c_str());
                    if (value == nullptr) return std::nullopt;
                    return std::string(value);
                  });
              auto launch = makeLaunch(s, std::move(environment));
              launch.cgroupPath = cgroupPath;
              launch.pidsGroupPath = pidsGroupPath;
              launch.execNotify = execNotify;
              return s.pty->start(kj::mv(launch));
            });
      })
      .then([&s](PtySpawn spawn) {
        s.sampler->start(spawn.rootPid);
        s.checkpoints->spawned(spawn.rootPid);
        if (s.interactions) s.interactions->spawned(spawn.rootPid, s.result.tempRoot);
        s.phase(CapturePhase::RUNNING);
        return s.pty->whenExited();
      })
      .then([&s](std::optional<PtyExit> exit) -> kj::Promise<void> {
        s.checkpoints->rootExited();  // B §6.10: at the start of completion, even on a timeout
        s.phase(CapturePhase::SETTLING);
        if (!exit) {
          // The pty helper was lost before the root's exit was observed (A13): its target dies
          // with it (PR_SET_PDEATHSIG); settlement cannot be observed from the exit.
          return kj::READY_NOW;
        }
        // A `root_exit` checkpoint holds the descendants while its snapshot is taken: the
        // settlement window starts after it, so a slow snapshot does not shorten it.
        return s.checkpoints->whenTargetThawed()
            .then([&s]() { return s.sampler->settle(s.request.settleMs); })
            .then([&s](std::optional<SamplerSettlement> settlement) {
              s.result.settlement = settlement;
              s.checkpoints->settled();
            });
      })
      .then([&s]() {
        s.phase(CapturePhase::SNAPSHOT);
        return s.checkpoints->finish();  // AFTER, after_settlement
      })
      .then([&s]() {
        s.phase(CapturePhase::CLEANUP);
        // B §6.6.3 release. Independent lines run at once, so that waiting for one helper's
        // exit overlaps the others' work: the pty, shim and replay links finish (each ends with
        // its helper's exit), while the sampler stops and cleans up what the capture owns. The
        // target has exited and settled by now, so no order between the links is observable.
        // Only the process cleanup and the temp root can fail a release, and they keep their
        // order (the first failure is remembered, below); a lost shim helper is the only link
        // noted as its line ends, the others after all of them.
        auto lines = kj::heapArrayBuilder<kj::Promise<void>>(4);
        lines.add(s.pty->finish());
        lines.add(s.shims->finish(s.result));
        lines.add(s.replay ? s.replay->finish() : kj::Promise<void>(kj::READY_NOW));
        lines.add(s.sampler->stop()
                      .then([&s]() { return s.sampler->cleanup(); })
                      .then([&s](SamplerCleanup cleanup) { s.result.processCleanup = cleanup; }));
        return kj::joinPromises(lines.finish());
      })
      .then([&s]() {
        s.result.pty = s.pty->takeRecord();
        if (s.result.pty.fault) s.noteLost("pty", *s.result.pty.fault);
        if (s.replay) {
          s.result.replay = s.replay->record();
          if (s.result.replay->fault) s.noteLost("replay", *s.result.replay->fault);
        }
        s.result.filesystem = s.checkpoints->record();
        if (s.interactions) s.result.interactionWaits = s.interactions->record();
        if (s.result.filesystem.lost) {
          s.result.lostHelpers.push_back({"fswatch", s.result.filesystem.lost->sentence()});
        }
        if (!s.result.processCleanup.complete) {
          s.noteCleanupFailure(s.result.processCleanup.problem);
        }
        s.result.sampler = s.sampler->record();
        if (s.result.sampler.fault) s.noteLost("sampler", *s.result.sampler.fault);
        if (auto failure = s.root.tryRemove()) s.noteCleanupFailure(*failure);
      })
      .then([state = kj::mv(state)]() mutable {
        // The state (every link) goes with the result: helpers still exiting are reaped when
        // the caller drops it, after the assembly. Until here it was owned by this last step,
        // so a dropped capture (SIGINT) still destroys it after every earlier step.
        CaptureRunResult result = kj::mv(state->result);
        result.helpers = kj::mv(state);
        return result;
      });
}

}  // namespace

}  // namespace rea::supervisor
