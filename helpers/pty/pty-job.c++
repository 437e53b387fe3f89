#include "helpers/pty/pty-job.h"

#include <errno.h>
#include <kj/debug.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers/common/exec-channel.h"
#include "helpers/pty/pty-job-impl.h"

namespace rea::helper {

namespace {

const idtype_t ID_PIDFD = idtype_t(3);  // P_PIDFD (linux/wait.h); glibc 2.36 lacks the name
const kj::Duration WATCHDOG_PERIOD = 20 * kj::MILLISECONDS;  // SPEC B §6.6.1
// A15: how long the exit report waits for output still in flight when a descendant keeps the
// PTY open (no EIO): until no read arrived for the quiet period, at most the limit.
const kj::Duration EXIT_QUIET_PERIOD = 100 * kj::MILLISECONDS;
const uint64_t EXIT_DRAIN_LIMIT_NS = 1000 * pty_job::NS_PER_MS;

}  // namespace

PtyJobImpl::~PtyJobImpl() noexcept(false) {
  KJ_IF_MAYBE (t, target) {
    if (!reaped) {
      // The job is abandoned with its root alive: the root must not outlive it.
      pty_job::sendSignal(t->pidfd.get(), SIGKILL);
      siginfo_t info;
      memset(&info, 0, sizeof(info));
      while (waitid(ID_PIDFD, id_t(t->pidfd.get()), &info, WEXITED) < 0 && errno == EINTR) {
      }
    }
  }
}

void PtyJobImpl::begin(kj::Function<void()> afterSpawn) {
  TargetSpec spec;
  spec.executable = config.executable;
  spec.arguments = config.arguments;
  spec.workingDirectory = config.workingDirectory;
  spec.executableObject = config.executableObject;
  spec.environment = config.environment;
  spec.columns = config.columns;
  spec.rows = config.rows;
  spec.netnsPath = config.netnsPath;
  spec.usernsPath = config.usernsPath;
  spec.cgroupPath = config.cgroupPath;
  spec.pidsGroupPath = config.pidsGroupPath;
  // The exec channel is inherited as fd 4 (helpers/common/exec-channel.h); used once, then
  // closed, so that this helper never holds the target's seccomp listener.
  // Only when asked: in a test process fd 4 is someone else's.
  struct stat channel;
  if (config.execNotify && fstat(EXEC_CHANNEL_FD, &channel) == 0 && S_ISSOCK(channel.st_mode)) {
    spec.execChannel = EXEC_CHANNEL_FD;
  }
  target = spawnTarget(spec);
  if (spec.execChannel >= 0) close(EXEC_CHANNEL_FD);
  auto& t = KJ_ASSERT_NONNULL(target);
  pidfdObserver = kj::heap<kj::UnixEventPort::FdObserver>(
      io.unixEventPort, t.pidfd.get(), kj::UnixEventPort::FdObserver::OBSERVE_READ);
  // The drain thread exists (waiting) before the lock-down, so TSYNC covers it; it reads
  // nothing until start() below.
  drain = kj::heap<DrainThread>(kj::mv(t.master), DrainThread::Limits{config.maxOutputBytes});
  afterSpawn();
  auto& d = *KJ_ASSERT_NONNULL(drain);
  readyObserver = kj::heap<kj::UnixEventPort::FdObserver>(
      io.unixEventPort, d.readyFd(), kj::UnixEventPort::FdObserver::OBSERVE_READ);
  d.start();

  tasks.add(watchExit());
  tasks.add(watchOutput());
  armEvents();
  tasks.add(timers.wrap(watchdog()).catch_([](kj::Exception&&) {}));
}

kj::Promise<PtyJobSummary> PtyJobImpl::finish() {
  KJ_REQUIRE(!finishing, "finish called twice");
  finishing = true;
  if (!reaped) {
    // The supervisor is done with this target: it must not run on unobserved.
    pty_job::sendSignal(KJ_ASSERT_NONNULL(target).pidfd.get(), SIGKILL);
  }
  return whenExited()
      .then([this]() {
        KJ_ASSERT_NONNULL(drain)->stop();
        return whenDrained();
      })
      .then([this]() {
        takeOutput();
        return outputEmitted();
      })
      .then([this]() {
        takeOutput(ALL);
        PtyJobSummary summary;
        summary.truncated = dropped > 0;
        summary.droppedChunks = dropped;
        summary.renderTruncated = renderBudget.truncated();
        summary.renderedFrames = renderedFrames;
        return summary;
      });
}

kj::Promise<void> PtyJobImpl::watchExit() {
  auto& t = KJ_ASSERT_NONNULL(target);
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  KJ_SYSCALL(waitid(ID_PIDFD, id_t(t.pidfd.get()), &info, WEXITED | WNOHANG), "reap target");
  if (info.si_pid == 0) {
    return KJ_ASSERT_NONNULL(pidfdObserver)->whenBecomesReadable().then([this]() {
      return watchExit();
    });
  }
  reaped = true;  // the pidfd stays open: signalling it now fails with ESRCH, never misfires
  bool exitedNormally = info.si_code == CLD_EXITED;
  int status = info.si_status;
  // A15 causal order: what the root wrote before it exited may still be on its way through
  // the tty layer. Report the exit only after the PTY drained (EIO: nothing holds the slave
  // any more, and Linux hands over every byte before EIO) or, when a descendant still holds
  // it, after the output went quiet (EXIT_QUIET_PERIOD, at most EXIT_DRAIN_LIMIT).
  uint64_t reapedNs = monotonicNowNs();
  return awaitExitDrain(reapedNs, outputChunks)
      .then([this]() { return outputEmitted(); })
      .then([this, exitedNormally, status, reapedNs]() {
        emitExit(exitedNormally, status, reapedNs);
      });
}

kj::Promise<void> PtyJobImpl::awaitExitDrain(uint64_t reapedNs, uint64_t chunksBefore) {
  takeOutput();
  if (drainEnded || finishing) return kj::READY_NOW;
  uint64_t nowNs = monotonicNowNs();
  if (nowNs - reapedNs >= EXIT_DRAIN_LIMIT_NS) return kj::READY_NOW;
  return whenDrained().exclusiveJoin(
      timer.afterDelay(EXIT_QUIET_PERIOD)
          .then([this]() { return drainSynced(); })
          .then([this, reapedNs, chunksBefore]() -> kj::Promise<void> {
            takeOutput();
            if (outputChunks == chunksBefore) return kj::READY_NOW;  // quiet: nothing more came
            return awaitExitDrain(reapedNs, outputChunks);
          }));
}

kj::Promise<void> PtyJobImpl::drainSynced() {
  // Resolves once the drain thread has queued everything the master holds now (or ended):
  // "quiet" is then the master's state, not only the timer's, which a busy machine can
  // outrun (the thread off the CPU between its read and its queueing).
  if (drainEnded) return kj::READY_NOW;
  syncGeneration = KJ_ASSERT_NONNULL(drain)->requestSync();
  auto paf = kj::newPromiseAndFulfiller<void>();
  synced = kj::mv(paf.fulfiller);
  return kj::mv(paf.promise);
}

void PtyJobImpl::emitExit(bool exitedNormally, int status, uint64_t reapedNs) {
  takeOutput(ALL);
  // Stamped when it was reaped; emit() moves it after output read since (written before).
  PtyJobEvent exit{PtyJobEvent::Kind::EXITED, reapedNs};
  exit.exitedNormally = exitedNormally;
  exit.status = status;
  exit.reason = reason;
  emit(kj::mv(exit));
  uint64_t exitAtNs = lastEmittedNs;
  KJ_IF_MAYBE (w, waiting) {
    // The held event waits for this exit: performed now, at the exit's time.
    uint32_t index = waitingIndex;
    if (config.events[index].waitsForExit && !fired[index]) {
      fired[index] = true;
      PtyJobEvent event{PtyJobEvent::Kind::DISPATCHED, exitAtNs};
      event.eventIndex = index;
      event.outcome = perform(config.events[index]) ? PtyJobEvent::Outcome::DISPATCHED
                                                    : PtyJobEvent::Outcome::FAILED;
      emit(kj::mv(event));
    }
    (void)w;
  }
  for (uint32_t i = 0; i < fired.size(); ++i) {
    if (fired[i]) continue;
    fired[i] = true;
    PtyJobEvent event{PtyJobEvent::Kind::DISPATCHED, exitAtNs};
    event.eventIndex = i;
    event.outcome = PtyJobEvent::Outcome::TARGET_EXITED;
    emit(kj::mv(event));
  }
  timers.cancel("the target exited");
  exitedFulfiller->fulfill();
}

kj::Promise<void> PtyJobImpl::watchdog() {
  // B §6.6.1, every 20 ms until the exit: the kill repeats each tick, the last reason wins.
  return timer.afterDelay(WATCHDOG_PERIOD).then([this]() -> kj::Promise<void> {
    if (reaped) return kj::READY_NOW;
    takeOutput();
    uint64_t nowNs = monotonicNowNs();
    bool kill = true;
    auto since = [nowNs](uint64_t thenNs) { return nowNs > thenNs ? nowNs - thenNs : 0; };
    if (since(config.t0Ns) >= config.timeoutMs * pty_job::NS_PER_MS) {
      reason = PtyJobEvent::Reason::TIMEOUT;
    } else if (since(lastOutputNs) >= config.idleTimeoutMs * pty_job::NS_PER_MS) {
      reason = PtyJobEvent::Reason::IDLE_TIMEOUT;
    } else {
      kill = false;
    }
    if (kill) pty_job::sendSignal(KJ_ASSERT_NONNULL(target).pidfd.get(), SIGKILL);
    return watchdog();
  });
}

void validatePtyJobConfig(const PtyJobConfig& config) {
  using evidence::limit::FRAMES;
  using evidence::limit::OUTPUT_BYTES;
  using evidence::terminal::COLUMNS;
  using evidence::terminal::ROWS;
  KJ_REQUIRE(!config.executable.empty(), "executable is empty");
  KJ_REQUIRE(config.executable.find('\0') == std::string::npos, "executable holds NUL");
  KJ_REQUIRE(!config.workingDirectory.empty(), "working directory is empty");
  KJ_REQUIRE(config.arguments.size() <= 256, "too many arguments", config.arguments.size());
  for (auto& argument : config.arguments) {
    KJ_REQUIRE(argument.find('\0') == std::string::npos, "an argument holds NUL");
  }
  for (auto& entry : config.environment) {
    KJ_REQUIRE(entry.find('=') != std::string::npos && entry.find('=') > 0,
               "environment entry is not NAME=VALUE");
    KJ_REQUIRE(entry.find('\0') == std::string::npos, "an environment entry holds NUL");
  }
  KJ_REQUIRE(COLUMNS.contains(config.columns), "columns out of range", config.columns);
  KJ_REQUIRE(ROWS.contains(config.rows), "rows out of range", config.rows);
  KJ_REQUIRE(config.events.size() <= 1000, "too many events", config.events.size());
  // Events that do not wait are sorted by atMs among themselves (a waiting event's atMs is only
  // its earliest time).
  const PtyJobInteraction* previousTimed = nullptr;
  for (size_t i = 0; i < config.events.size(); ++i) {
    if (config.events[i].waits) continue;
    KJ_REQUIRE(previousTimed == nullptr || previousTimed->atMs <= config.events[i].atMs,
               "events not sorted by atMs", i);
    previousTimed = &config.events[i];
  }
  for (auto& event : config.events) {
    switch (event.type) {
      case PtyJobInteraction::Type::INPUT:
        break;
      case PtyJobInteraction::Type::RESIZE:
        KJ_REQUIRE(COLUMNS.contains(event.columns) && ROWS.contains(event.rows),
                   "resize out of range", event.columns, event.rows);
        break;
      case PtyJobInteraction::Type::SIGNAL:
        KJ_REQUIRE(event.signal == SIGINT || event.signal == SIGTERM || event.signal == SIGKILL,
                   "signal not allowed", event.signal);
        break;
    }
  }
  KJ_REQUIRE(evidence::timing::TIMEOUT_MS.contains(config.timeoutMs), "timeoutMs out of range");
  KJ_REQUIRE(evidence::timing::IDLE_TIMEOUT_MS.contains(config.idleTimeoutMs),
             "idleTimeoutMs out of range");
  KJ_REQUIRE(FRAMES.contains(config.maxFrames), "maxFrames out of range");
  KJ_REQUIRE(OUTPUT_BYTES.contains(config.maxOutputBytes), "maxOutputBytes out of range");
  KJ_REQUIRE(evidence::terminal::SCROLLBACK.contains(config.scrollback), "scrollback out of range",
             config.scrollback);
  KJ_REQUIRE(FRAMES.contains(config.renderMaxFrames), "renderMaxFrames out of range");
  KJ_REQUIRE(OUTPUT_BYTES.contains(config.renderMaxBytes), "renderMaxBytes out of range");
}

kj::Own<PtyJob> PtyJob::start(kj::AsyncIoContext& io, PtyJobConfig config, PtyJobSink& sink,
                              kj::Function<void()> afterSpawn) {
  validatePtyJobConfig(config);
  auto job = kj::heap<PtyJobImpl>(io, kj::mv(config), sink);
  job->begin(kj::mv(afterSpawn));
  return kj::mv(job);
}

}  // namespace rea::helper
