#pragma once
// The sampler's job (ARCHITECTURE "helpers/sampler"): observe the target's whole process tree,
// decide settlement, and clean up only what the capture owns. One ProcessObserver per capture,
// driven by the sampler's RPC server or its standalone mode:
//
//   ProcessObserver observer(config, timer, eventPort, sink);  // before the target exists
//   launcher starts the target inside observer.cgroup() (see capture-cgroup.h)
//   observer.start(rootPid);                                   // right after the spawn
//   ... rows reach `sink` while the target runs ...
//   observer.settle(settleMs)  -> Settlement                    // after the root exited
//   observer.stop()            -> partial                       // samples end here
//   observer.cleanup()         -> CleanupReport                 // ownership-verified
//
// Modes (A8): EXACT when a capture cgroup could be created *and* the proc connector subscribed:
// every fork, exec and exit of a descendant is a row (event-tracker.h), membership and
// emptiness come from the cgroup, cleanup uses cgroup.kill. Otherwise SAMPLED: B §6.8 passes
// every 50 ms (process-walker.h); settlement and cleanup still use the cgroup when one exists,
// else the root's group plus groups led by an observed process. `forceSampled` is the switch
// that refuses both facilities (pure baseline behaviour, for tests and comparisons).
//
// Runs on the caller's kj event loop: it watches its fds with FdObservers of `eventPort` and
// waits with `timer`; nothing blocks for long (a sampling pass or an event drain is a few /proc
// reads per process). Tests drive it with kj::setupAsyncIo() and `.wait(waitScope)`.
// Owns: the capture cgroup, the proc-connector subscription, the background observation.
//
// Errors: an unusable machine is a mode (`sampledReason()`), lost observations are `partial`,
// settlement and cleanup failures are results; start/settle/stop/cleanup KJ_REQUIRE the order
// above (each at most once).

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>

#include <kj/async-unix.h>
#include <kj/memory.h>
#include <kj/timer.h>

#include <vector>

#include "evidence/limits.h"
#include "helpers/sampler/cleanup.h"
#include "helpers/sampler/proc-connector.h"
#include "helpers/sampler/sample-recorder.h"
#include "helpers/sampler/settlement.h"

namespace rea::helper {

class CaptureCgroup;
class ExecNotifier;
struct ExecRequest;
class ProcConnector;
class EventTracker;
class ProcessWalker;

enum class ObservationMode { EXACT, SAMPLED };

const char* observationModeName(ObservationMode mode);
// "exact" / "sampled": the manifest's `process_observation` (A8).

struct ObserverConfig {
  std::string runToken;  // REA_PROCESS_RUN_ID of the target (B §6.1)
  uint32_t maxProcesses = uint32_t(evidence::limit::PROCESSES.defaultValue);  // B §3.6
  bool forceSampled = false;  // no cgroup, no proc connector: B §6.8 with the B §12 fixes
  bool realtimeEvents = true;
  // Exact mode: while observing, the calling thread runs SCHED_FIFO (with SCHED_RESET_ON_FORK,
  // so nothing it forks inherits it). An exec'd program's argv can only be read from /proc
  // while it lives; /bin/true lives about a millisecond, and on a busy machine an ordinary
  // thread wakes too late for one exec in ten. Without the privilege this silently does nothing.
  bool execNotify = false;
  // Exact mode: observe execs kernel-side (exec-notifier.h) through `execChannel`.
  int execChannel = -1;
  // The exec channel (helpers/common/exec-channel.h), or -1. Owned (closed) by the observer.
};

enum class ExecObservation { NONE, PROCFS, SECCOMP_NOTIFY };
// How execs' command lines are observed: not at all as events (sampled), from /proc after the
// kernel's exec event (exact), or kernel-side before the exec (either mode; the manifest's
// exec_observation).

class ProcessObserver {
 public:
  ProcessObserver(ObserverConfig config, kj::Timer& timer, kj::UnixEventPort& eventPort,
                  ProcessSink& sink);
  // Creates the capture cgroup and subscribes to process events (unless forced sampled); from
  // here on the target's fork is in the event queue. All arguments must outlive the observer.
  ~ProcessObserver() noexcept(false);
  // Stops observing; the cgroup's destructor removes it (verified kill first) if `cleanup()`
  // did not.
  KJ_DISALLOW_COPY(ProcessObserver);

  ObservationMode mode() const { return exact ? ObservationMode::EXACT : ObservationMode::SAMPLED; }
  // Fixed at construction; `observationModeName(mode())` is the manifest's process_observation.
  const std::string& sampledReason() const { return whySampled; }
  // Why the mode is SAMPLED ("" when EXACT), e.g. "sampling forced" or the cgroup's reason.

  kj::Maybe<CaptureCgroup&> cgroup();
  // The group the launcher must start the target in (path() / dirFd()); null when none.

  void start(pid_t rootPid);
  // The target was spawned (rootPid = pgid = sid). Exact: follows events from the root's fork.
  // Sampled: passes now and every 50 ms, each a no-op until the root is initialised.

  kj::Promise<Settlement> settle(uint64_t settleMs);
  // Call after the root exited; observation continues meanwhile. Exact/cgroup: quiesced as soon
  // as the cgroup is empty; groups: B §6.7.2's two-empty rule.

  bool stop();
  // Ends observation (exact: after handling every event already queued, then unsubscribes).
  // Returns `partial`: the process limit was hit or observations were lost. Idempotent.

  kj::Promise<CleanupReport> cleanup();
  // After stop(). Ownership-verified cleanup over the same scope as settle(), then the cgroup
  // is removed and run-token carriers outside it are named and killed (cleanup.h).

  bool execNotifyOffered() const { return notifier.get() != nullptr; }
  // Not forced sampled, with the exec channel and a kernel that has seccomp user notification:
  // the launcher is to install the exec filter (PtyConfig.execNotify). Exact mode takes each
  // exec's command for its kernel exec event; sampled mode records each exec as a row at once.
  ExecObservation execObservation() const;
  std::string execProblem() const;
  // Why kernel-side observation was asked for and is not in use ("" otherwise).

  bool isPartial() const { return recorder.isPartial(); }
  uint32_t recordedCount() const { return recorder.recordedCount(); }
  uint32_t unreadCommandCount() const { return recorder.unreadCommandCount(); }
  // Exact mode: execs whose command could not be read (their rows are missing; not partial).

  std::set<pid_t> observedGroups() const;
  // The root's group plus every group led by a recorded process (pid = pgid): the sampled
  // scope of settle() and cleanup() (B §12, 40c6f60a).

 private:
  class LeaderSink;
  class RealtimeBoost;

  ObserverConfig config;
  kj::Timer& timer;
  kj::UnixEventPort& eventPort;
  kj::Own<LeaderSink> leaderSink;
  SampleRecorder recorder;
  std::string whySampled;
  bool exact = false;
  kj::Own<CaptureCgroup> group;      // null: no capture cgroup
  kj::Own<ProcConnector> connector;  // null: sampled, or stopped
  kj::Own<EventTracker> tracker;
  kj::Own<ProcessWalker> walker;
  kj::Own<CaptureScope> scope;
  kj::Own<kj::UnixEventPort::FdObserver> connectorWatch;  // destroyed before the fds they watch
  kj::Own<kj::UnixEventPort::FdObserver> cgroupWatch;
  kj::Own<RealtimeBoost> boost;
  kj::Own<ExecNotifier> notifier;  // kept to the end: its listener closing fails later execs
  std::string execWhyNot;
  kj::Maybe<kj::Promise<void>> observation;
  pid_t rootPid = 0;
  bool started = false;
  bool stopped = false;
  bool cleanedUp = false;

  // Exact mode follows events from construction on, before the root's pid is known: the root is
  // guessed as the first process born inside the capture cgroup to a parent outside it (both
  // checked against /proc/PID/cgroup at once), so a target that execs and exits within a
  // millisecond, before the launcher's start() arrives, is still recorded. Every event before
  // start() is kept (bounded) and replayed by start() when the root could not be identified
  // live or the guess was wrong (no ordering between the processes is assumed).
  std::string cgroupRelativePath;  // the group as /proc/PID/cgroup names it ("/rea-<token>")
  std::vector<ProcEvent> history;
  bool historyOverflow = false;
  bool launchedFromOutside(pid_t parentPid);

  // Exact mode: events read from the connector and not yet handled, and how many EXECs of each
  // pid are among them, so that an exec can be checked for a later one (laterExecQueued).
  std::vector<ProcEvent> pending;
  size_t nextPending = 0;
  std::unordered_map<pid_t, uint32_t> pendingExecs;
  bool queueEmpty = false;  // the last read from the connector ended with its queue empty

  // Kernel-side exec observation: a notification is the exec that the next EXEC event of its
  // pid will report (a failed exec has none and is overwritten by the retry). EXEC events are
  // counted per pid as read and as handled; a notification is stamped with the ordinal of the
  // exec event it precedes (read + 1, after reading all the kernel has queued), and matches the
  // EXEC event that is handled as that ordinal.
  struct NotifiedExec {
    uint32_t ordinal;
    std::string command;
  };
  std::unordered_map<pid_t, uint32_t> execsRead;
  std::unordered_map<pid_t, uint32_t> execsHandled;
  std::unordered_map<pid_t, NotifiedExec> notifiedExecs;
  void noteExecRequest(pid_t pid, std::string command);
  // Sampled mode with kernel-side exec observation: each exec is a row of its own.
  std::vector<ProcessRecord> sampledExecsBeforeStart;
  struct LastExec {
    uint64_t startTime;
    std::string command;
  };
  std::unordered_map<pid_t, LastExec> lastNotifiedExec;  // pass rows are checked against it
  void startExecNotifier(kj::AutoCloseFd channel);
  void recordSampledExec(ExecRequest request);
  static pid_t threadGroupOf(pid_t pid);
  kj::Maybe<std::string> takeNotifiedCommand(pid_t pid);
  void forgetSettledExecCounts(pid_t pid);

  bool bornInCaptureCgroup(pid_t pid);
  kj::Own<EventTracker> makeTracker();
  void countPendingExecs(size_t from, size_t to);  // pendingExecs += EXECs of pending[from, to)
  void readConnector();
  bool laterExecQueued(pid_t pid);
  void handlePending(size_t budget);
  void handleEvent(const ProcEvent& event);
  bool drainEvents();
  kj::Promise<void> followEvents();
  kj::Promise<void> samplePasses();
  kj::Promise<void> whenCgroupChanges();
  CaptureScope& captureScope();
};

}  // namespace rea::helper
