#include "supervisor/capture-run.h"

#include <sys/stat.h>
#include <time.h>

#include <cstdlib>

#include <kj/debug.h>

#include "supervisor/run-token.h"
#include "supervisor/target-environment.h"
#include "supervisor/temp-root.h"

namespace rea::supervisor {
namespace {

struct CaptureState {
  CaptureRunRequest request;
  TempRoot root;
  CaptureRunResult result;
  // Before `pty`, so destroyed after it: a dropped capture loses the pty helper (its root dies
  // with it) first, then the sampler link cleans up what the capture owns (sampler-link.h).
  kj::Own<SamplerLink> sampler;
  kj::Own<PtyLink> pty;

  explicit CaptureState(CaptureRunRequest request) : request(std::move(request)) {}

  void noteLost(const char* helper, const HelperFault& fault) {
    for (const auto& lost : result.lostHelpers) {
      if (lost.helper == helper) return;
    }
    result.lostHelpers.push_back({helper, fault.reason});
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
  launch.environment = std::move(environment);
  launch.columns = request.columns;
  launch.rows = request.rows;
  launch.events = request.events;
  launch.timeoutMs = request.timeoutMs;
  launch.idleTimeoutMs = request.idleTimeoutMs;
  launch.t0Ns = state.result.t0MonoNs;
  launch.maxFrames = request.maxFrames;
  launch.maxOutputBytes = request.maxOutputBytes;
  return launch;
}

}  // namespace

int64_t wallClockMs() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

uint64_t monotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

kj::Promise<CaptureRunResult> runCapture(kj::AsyncIoContext& io, CaptureRunRequest request) {
  // Roots left by a rea that was SIGKILLed (no live owner) go first; ours is made next.
  findStaleTempRoots(/*remove=*/true);
  auto state = kj::heap<CaptureState>(std::move(request));
  auto& s = *state;
  s.result.tempRoot = s.root.path();
  s.result.runToken = newRunToken();
  // B §6.2: TMP/shims is first on the target's PATH; it exists even when no shim is declared.
  KJ_SYSCALL(mkdir(s.root.shimsPath().c_str(), 0700), s.root.shimsPath());

  TargetEnvironmentInputs inputs;
  inputs.explicitEntries = s.request.environment;
  inputs.inheritNames = s.request.inheritEnvironment;
  inputs.homePath = s.root.homePath();
  inputs.shimsPath = s.root.shimsPath();
  inputs.runToken = s.result.runToken;
  auto environment =
      composeTargetEnvironment(inputs, [](const std::string& name) -> std::optional<std::string> {
        const char* value = getenv(name.c_str());
        if (value == nullptr) return std::nullopt;
        return std::string(value);
      });

  // The sampler first (A8): the target must be born inside its capture cgroup.
  s.sampler = kj::heap<SamplerLink>(io);
  SamplerPlan plan{s.result.runToken, s.request.maxProcesses, s.request.forceSampled};
  return s.sampler->prepare(kj::mv(plan))
      .then([&s, &io, environment = std::move(environment)](SamplerPrepared prepared) mutable {
        // T0 (B §4.5): right before the terminal and the PTY are created.
        s.result.t0RealMs = wallClockMs();
        s.result.t0MonoNs = monotonicNs();
        s.pty = kj::heap<PtyLink>(io);
        auto launch = makeLaunch(s, std::move(environment));
        launch.cgroupPath = prepared.cgroupPath;
        return s.pty->start(kj::mv(launch));
      })
      .then([&s](PtySpawn spawn) {
        s.sampler->start(spawn.rootPid);
        return s.pty->whenExited();
      })
      .then([&s](std::optional<PtyExit> exit) -> kj::Promise<void> {
        if (!exit) {
          // The pty helper was lost before the root's exit was observed (A13): its target dies
          // with it (PR_SET_PDEATHSIG); settlement cannot be observed from the exit.
          return kj::READY_NOW;
        }
        return s.sampler->settle(s.request.settleMs)
            .then([&s](std::optional<SamplerSettlement> settlement) {
              s.result.settlement = settlement;
            });
      })
      .then([&s]() { return s.pty->finish(); })
      .then([&s]() {
        s.result.pty = s.pty->record();
        if (s.result.pty.fault) s.noteLost("pty", *s.result.pty.fault);
        return s.sampler->stop();
      })
      .then([&s]() {
        // B §6.6.3 release, in order, remembering the first failure.
        return s.sampler->cleanup();
      })
      .then([&s](SamplerCleanup cleanup) {
        if (!cleanup.complete) s.noteCleanupFailure(cleanup.problem);
        s.result.processCleanup = cleanup;
        s.result.sampler = s.sampler->record();
        if (s.result.sampler.fault) s.noteLost("sampler", *s.result.sampler.fault);
        KJ_IF_MAYBE (e, kj::runCatchingExceptions([&s]() { s.root.remove(); })) {
          s.noteCleanupFailure("temporary process root cleanup failed");
        }
        return kj::mv(s.result);
      })
      .attach(kj::mv(state));
}

}  // namespace rea::supervisor
