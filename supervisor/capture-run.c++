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

// Kills what the capture owns in the root's process group when dropped, unless release() ran
// first. This is what makes cancellation (a dropped promise) and helper loss safe.
class OwnedGroupGuard {
 public:
  OwnedGroupGuard(pid_t pgid, std::string token) : pgid(pgid), token(std::move(token)) {}
  ~OwnedGroupGuard() noexcept(false) {
    if (!released) cleanupOwnedGroup(pgid, token);
  }
  GroupCleanup release() {
    released = true;
    return cleanupOwnedGroup(pgid, token);
  }

 private:
  pid_t pgid;
  std::string token;
  bool released = false;
};

struct CaptureState {
  CaptureRunRequest request;
  TempRoot root;
  CaptureRunResult result;
  kj::Own<PtyLink> pty;
  kj::Maybe<kj::Own<OwnedGroupGuard>> groupGuard;

  explicit CaptureState(CaptureRunRequest request) : request(std::move(request)) {}

  void noteLost(const HelperFault& fault) {
    for (const auto& lost : result.lostHelpers) {
      if (lost.helper == "pty") return;
    }
    result.lostHelpers.push_back({"pty", fault.reason});
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

uint64_t monotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

kj::Promise<CaptureRunResult> runCapture(kj::AsyncIoContext& io, CaptureRunRequest request) {
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

  // T0 (B §4.5): right before the terminal and the PTY are created.
  s.result.t0RealMs = wallClockMs();
  s.result.t0MonoNs = monotonicNs();
  s.pty = kj::heap<PtyLink>(io);

  auto& timer = io.provider->getTimer();
  return s.pty->start(makeLaunch(s, std::move(environment)))
      .then([&s](PtySpawn spawn) {
        s.groupGuard = kj::heap<OwnedGroupGuard>(spawn.rootPid, s.result.runToken);
        return s.pty->whenExited();
      })
      .then([&s, &timer](std::optional<PtyExit> exit) -> kj::Promise<void> {
        if (!exit) {
          // The pty helper was lost before the root's exit was observed (A13): its target dies
          // with it (PR_SET_PDEATHSIG); settlement cannot be observed from the exit.
          return kj::READY_NOW;
        }
        pid_t root = s.pty->record().spawn->rootPid;
        return observeSettlement(timer, {root}, s.result.runToken, s.request.settleMs)
            .then([&s](SettlementResult settlement) { s.result.settlement = settlement; });
      })
      .then([&s]() { return s.pty->finish(); })
      .then([&s]() {
        s.result.pty = s.pty->record();
        if (s.result.pty.fault) s.noteLost(*s.result.pty.fault);
        // B §6.6.3 release, in order, remembering the first failure.
        KJ_IF_MAYBE (guard, s.groupGuard) {
          auto cleanup = (*guard)->release();
          if (!cleanup.complete) s.noteCleanupFailure(cleanup.problem);
        }
        KJ_IF_MAYBE (e, kj::runCatchingExceptions([&s]() { s.root.remove(); })) {
          s.noteCleanupFailure("temporary process root cleanup failed");
        }
        return kj::mv(s.result);
      })
      .attach(kj::mv(state));
}

}  // namespace rea::supervisor
