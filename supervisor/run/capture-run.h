#pragma once
// One capture run (SPEC B §6.1 PREPARE..FINISH, the parts that touch the system): creates the
// private temp root and run token, sets T0, starts the shim helper when shims are declared
// (shim-run.h), composes the target's environment, starts the pty helper, waits for the root's
// exit, observes settlement, ends the pty job and the shim ledger, cleans up the capture's owned
// processes and removes the temp root. Everything observed is returned raw
// (monotonic times, unnormalised text); capture-assembly turns it into the capture object.
//
// Cleanup always happens: the temp root and the owned processes (the sampler's capture cgroup
// and groups, see sampler-link.h) are released on every path, including when the returned
// promise is cancelled (rea got SIGINT, SIGTERM or SIGHUP) or a helper dies.
//
// Errors: the promise rejects (FAILED) when the target could not be started at all; what
// happens after a successful start (a lost helper, a cleanup that could not be verified) is
// data in CaptureRunResult.
//
// Replay (B §8.1, A9): when the scenario has a replay plan or network_access "loopback", the
// replay helper starts first (before T0); its URLs go into the target's environment and, for
// "loopback", its private network namespace is joined by the target. If it cannot start, the
// run rejects: the target never runs with host networking instead.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <kj/async-io.h>

#include "supervisor/cli/capture-progress.h"
#include "supervisor/run/checkpoint-driver.h"
#include "supervisor/run/interaction-driver.h"
#include "supervisor/links/pty-link.h"
#include "supervisor/links/replay-link.h"
#include "supervisor/links/sampler-link.h"
#include "supervisor/links/shim-link.h"

namespace rea::supervisor {

struct CaptureRunRequest {
  std::string executable;
  std::vector<std::string> arguments;
  std::string workingDirectory;
  std::string executableObject;  // the checked executable (checked-paths.h); "" = by path
  std::vector<std::pair<std::string, std::string>> environment;  // scenario `environment`
  std::vector<std::string> inheritEnvironment;
  // Defaults of the sizes and limits below: evidence/limits.h.
  uint16_t columns = uint16_t(evidence::terminal::COLUMNS.defaultValue);
  uint16_t rows = uint16_t(evidence::terminal::ROWS.defaultValue);
  std::vector<PtyInteraction> events;
  uint64_t timeoutMs = uint64_t(evidence::timing::TIMEOUT_MS.defaultValue);
  uint64_t idleTimeoutMs = uint64_t(evidence::timing::IDLE_TIMEOUT_MS.defaultValue);
  int64_t settleMs = 100;
  uint32_t maxFrames = uint32_t(evidence::limit::FRAMES.defaultValue);
  uint64_t maxOutputBytes = uint64_t(evidence::limit::OUTPUT_BYTES.defaultValue);
  CheckpointPlan filesystem;     // roots, limits, checkpoints (B §6.9, §6.10)
  InteractionPlan interactions;  // events that wait (`when`): watched by an InteractionDriver
  // Command shims (B §7): the scenario's `command_shims` and `limits.protocol_events`.
  std::vector<evidence::CommandShim> commandShims;
  uint32_t protocolEvents = uint32_t(evidence::limit::PROTOCOL_EVENTS.defaultValue);
  std::optional<ReplayLaunch> replay;  // set: the replay helper runs (a plan, or loopback)
  uint32_t scrollback =                // terminal.scrollback, for the renderer
      uint32_t(evidence::terminal::SCROLLBACK.defaultValue);
  uint32_t maxProcesses = uint32_t(evidence::limit::PROCESSES.defaultValue);
  uint32_t maxPids = 0;       // REA_PROCESS_MAX_PIDS (operator policy); 0 = no bound
  bool forceSampled = false;  // REA_FORCE_SAMPLED=1 (tests): the baseline's sampling
  bool execNotify =
      true;  // kernel-side exec observation where possible; REA_EXEC_OBSERVATION=procfs
};

struct LostHelper {
  std::string helper;  // "pty", "fswatch"
  std::string reason;  // "the pty helper crashed with signal 11 (SIGSEGV)"
};

class CaptureHelpers {
  // The links and processes of a finished capture's helpers, some of which may still be exiting
  // after their last answer (the sampler's exit is not waited for: it would hold up the temp
  // root's removal and the assembly). Destroying it reaps them (SIGKILL for one still there).
 public:
  virtual ~CaptureHelpers() noexcept(false) = default;
};

struct CaptureRunResult {
  std::string tempRoot;  // the real path (for normalisation); removed by now
  std::string runToken;
  int64_t t0RealMs = 0;  // wall clock at T0 (manifest.started_at)
  uint64_t t0MonoNs = 0;
  PtyRecord pty;
  SamplerRecord sampler;  // process observation: mode, raw samples, partial, fault
  std::optional<SamplerSettlement> settlement;  // absent when the root's exit was never observed
                                                // or the sampler was lost
  SamplerCleanup processCleanup;              // who was signalled or left alone, and escapees (A8)
  std::optional<std::string> cleanupFailure;  // first failure of B §6.6.3 release, if any
  std::vector<LostHelper> lostHelpers;        // A13
  FilesystemRecord filesystem;  // checkpoints; `failure` set: the capture fails (B §6.10)
  std::vector<InteractionWaitRecord> interactionWaits;  // per event; empty when none waits
  std::optional<ShimRecord> shims;                      // set when shims were declared (shim-run.h)
  std::optional<ReplayRecord> replay;                   // when the replay helper ran
  kj::Own<CaptureHelpers> helpers;  // keep until the Evidence is assembled, then drop (reaps)
};

kj::Promise<CaptureRunResult> runCapture(kj::AsyncIoContext& io, CaptureRunRequest request,
                                         kj::Maybe<CaptureProgress&> progress = nullptr);
// `progress` (optional, outliving the promise and the result's `helpers`) is told the phases
// and sees the pty output. `io` must outlive the result's `helpers` too.

int64_t wallClockMs();

}  // namespace rea::supervisor
