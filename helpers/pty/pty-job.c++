#include "helpers/pty/pty-job.h"

#include <errno.h>
#include <kj/async-unix.h>
#include <kj/debug.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <deque>
#include <vector>

#include "helpers/common/clock.h"
#include "helpers/common/exec-channel.h"
#include "helpers/pty/drain-thread.h"
#include "helpers/pty/target.h"

namespace rea::helper {

namespace {

const idtype_t ID_PIDFD = idtype_t(3);  // P_PIDFD (linux/wait.h); glibc 2.36 lacks the name
const kj::Duration WATCHDOG_PERIOD = 20 * kj::MILLISECONDS;  // SPEC B §6.6.1
const uint64_t NS_PER_MS = 1000000;
// A15: how long the exit report waits for output still in flight when a descendant keeps the
// PTY open (no EIO): until no read arrived for the quiet period, at most the limit.
const kj::Duration EXIT_QUIET_PERIOD = 100 * kj::MILLISECONDS;
const uint64_t EXIT_DRAIN_LIMIT_NS = 1000 * NS_PER_MS;

kj::ForkedPromise<void> makeSignal(kj::Own<kj::PromiseFulfiller<void>>& fulfiller) {
  auto paf = kj::newPromiseAndFulfiller<void>();
  fulfiller = kj::mv(paf.fulfiller);
  return paf.promise.fork();
}

int sendSignal(int pidfd, int signal) {
  // Returns 0 or the errno.
  return syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0) == 0 ? 0 : errno;
}

class PtyJobImpl final : public PtyJob, private kj::TaskSet::ErrorHandler {
 public:
  PtyJobImpl(kj::AsyncIoContext& io, PtyJobConfig config, PtyJobSink& sink)
      : io(io),
        timer(io.provider->getTimer()),
        config(kj::mv(config)),
        sink(sink),
        exitedSignal(makeSignal(exitedFulfiller)),
        drainedSignal(makeSignal(drainedFulfiller)),
        failedSignal(makeSignal(failedFulfiller)),
        renderer(this->config.columns, this->config.rows, int(this->config.scrollback)),
        renderBudget(this->config.renderMaxFrames, this->config.renderMaxBytes),
        tasks(*this) {
    if (this->config.t0Ns == 0) this->config.t0Ns = monotonicNowNs();
    lastOutputNs = this->config.t0Ns;
    fired.resize(this->config.events.size(), false);
    released.resize(this->config.events.size(), Release::NONE);
  }

  ~PtyJobImpl() noexcept(false) {
    KJ_IF_MAYBE (t, target) {
      if (!reaped) {
        // The job is abandoned with its root alive: the root must not outlive it.
        sendSignal(t->pidfd.get(), SIGKILL);
        siginfo_t info;
        memset(&info, 0, sizeof(info));
        while (waitid(ID_PIDFD, id_t(t->pidfd.get()), &info, WEXITED) < 0 && errno == EINTR) {
        }
      }
    }
  }

  void begin(kj::Function<void()> afterSpawn) {
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

  // implements PtyJob ---------------------------------------------------------------------

  pid_t rootPid() const override { return KJ_ASSERT_NONNULL(target).pid; }
  uint64_t spawnedAtNs() const override { return KJ_ASSERT_NONNULL(target).spawnedAtNs; }
  kj::Promise<void> whenExited() override { return exitedSignal.addBranch(); }

  void writeToTarget(std::string bytes) override {
    if (reaped || finishing) return;
    pendingInput.append(bytes);
    if (!waitingWritable) writeInput();
  }
  kj::Promise<void> whenDrained() override { return drainedSignal.addBranch(); }
  kj::Promise<void> whenFailed() override { return failedSignal.addBranch(); }

  kj::Promise<PtyJobSummary> finish() override {
    KJ_REQUIRE(!finishing, "finish called twice");
    finishing = true;
    if (!reaped) {
      // The supervisor is done with this target: it must not run on unobserved.
      sendSignal(KJ_ASSERT_NONNULL(target).pidfd.get(), SIGKILL);
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

 private:
  kj::AsyncIoContext& io;
  kj::Timer& timer;
  PtyJobConfig config;
  PtyJobSink& sink;

  kj::Maybe<Target> target;
  kj::Maybe<kj::Own<DrainThread>> drain;
  kj::Maybe<kj::Own<kj::UnixEventPort::FdObserver>> pidfdObserver;  // before the pidfd closes
  kj::Maybe<kj::Own<kj::UnixEventPort::FdObserver>> readyObserver;  // before the eventfd closes
  kj::Maybe<kj::Own<kj::UnixEventPort::FdObserver>> writeObserver;  // before the master closes

  uint64_t lastEmittedNs = 0;
  uint64_t lastOutputNs;
  uint64_t dropped = 0;       // the drain thread's count of chunks over the raw limits
  uint64_t outputChunks = 0;  // reads taken so far (accepted or dropped): output still flowing
  // Accepted chunks taken from the drain thread but not yet emitted (PtyJobSink::wantsMore):
  // raw, in read order. `emittedChunks` + backlog.size() chunks were taken so far.
  std::deque<DrainThread::Chunk> backlog;
  uint64_t emittedChunks = 0;
  bool resumeArmed = false;  // a whenWantsMore() continuation is pending
  struct EmittedWaiter {
    uint64_t chunks;  // resolves once emittedChunks reaches this
    kj::Own<kj::PromiseFulfiller<void>> fulfiller;
  };
  std::vector<EmittedWaiter> emittedWaiters;
  std::vector<bool> fired;
  enum class Release : uint8_t { NONE, GO, TIMED_OUT, TIMED_OUT_STOP };
  std::vector<Release> released;  // per event: how release() let it go
  uint32_t waitingIndex = 0;      // the event the chain holds, while `waiting` is set
  kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> waiting;
  PtyJobEvent::Reason reason = PtyJobEvent::Reason::EXITED;
  bool reaped = false;
  bool drainEnded = false;
  bool finishing = false;
  std::string pendingInput;
  bool waitingWritable = false;
  uint64_t syncGeneration = 0;  // the drain thread's sync awaited by `synced`
  kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> synced;

  kj::Own<kj::PromiseFulfiller<void>> exitedFulfiller;
  kj::Own<kj::PromiseFulfiller<void>> drainedFulfiller;
  kj::Own<kj::PromiseFulfiller<void>> failedFulfiller;
  kj::ForkedPromise<void> exitedSignal;
  kj::ForkedPromise<void> drainedSignal;
  kj::ForkedPromise<void> failedSignal;
  Renderer renderer;
  RenderBudget renderBudget;
  uint32_t renderedFrames = 0;
  kj::Canceler timers;  // interaction timers and the watchdog; cancelled at the root's exit
  kj::TaskSet tasks;    // last: destroyed first

  void taskFailed(kj::Exception&& exception) override {
    failedFulfiller->reject(kj::mv(exception));
  }

  void emit(PtyJobEvent&& event) {
    // Chunks are stamped by the drain thread, the rest by the loop: clamp so the stream never
    // goes back in time (the difference is the hand-off latency, microseconds).
    if (event.atNs < lastEmittedNs) event.atNs = lastEmittedNs;
    lastEmittedNs = event.atNs;
    sink.event(kj::mv(event));
  }

  enum Emit { AS_SINK_WANTS, ALL };

  void takeOutput(Emit emitting = AS_SINK_WANTS) {
    // Every loop-side event first takes what the drain thread queued, with ALL, so that output
    // read before it is emitted before it. Otherwise chunks are emitted while the sink wants
    // more; the rest waits in `backlog` (raw) for whenWantsMore().
    if (drain == nullptr) return;
    auto taken = KJ_ASSERT_NONNULL(drain)->take();
    // The drain thread applied the raw limits (B §6.5) as it read; a dropped chunk is still
    // output for the idle watchdog.
    if (taken.dropped != dropped) ++outputChunks;
    dropped = taken.dropped;
    if (taken.lastDroppedNs > lastOutputNs) lastOutputNs = taken.lastDroppedNs;
    outputChunks += taken.chunks.size();
    for (auto& chunk : taken.chunks) {
      if (chunk.atNs > lastOutputNs) lastOutputNs = chunk.atNs;
      backlog.push_back(kj::mv(chunk));
    }
    emitBacklog(emitting);
    if (taken.synced >= syncGeneration || taken.ended) {
      KJ_IF_MAYBE (f, synced) {
        (*f)->fulfill();
        synced = nullptr;
      }
    }
    if (taken.ended && !drainEnded) {
      drainEnded = true;
      KJ_IF_MAYBE (error, taken.error) {
        failedFulfiller->reject(KJ_EXCEPTION(FAILED, "pty drain failed", *error));
      }
      drainedFulfiller->fulfill();
    }
  }

  void emitBacklog(Emit emitting) {
    while (!backlog.empty()) {
      if (emitting == AS_SINK_WANTS && !sink.wantsMore()) {
        if (!resumeArmed) {
          resumeArmed = true;
          tasks.add(sink.whenWantsMore().then([this]() {
            resumeArmed = false;
            takeOutput();
          }));
        }
        break;
      }
      DrainThread::Chunk chunk = kj::mv(backlog.front());
      backlog.pop_front();
      PtyJobEvent event{PtyJobEvent::Kind::OUTPUT, chunk.atNs};
      event.output = kj::mv(chunk.data);
      // B §6.11: the accepted chunk goes to the emulator, then one frame with its time; the
      // answers to queries in it follow the frame.
      renderer.feed(event.output);
      emit(kj::mv(event));
      captureFrame(chunk.atNs);
      answerQueries();
      ++emittedChunks;
    }
    for (size_t i = 0; i < emittedWaiters.size();) {
      if (emittedWaiters[i].chunks <= emittedChunks) {
        emittedWaiters[i].fulfiller->fulfill();
        emittedWaiters.erase(emittedWaiters.begin() + long(i));
      } else {
        ++i;
      }
    }
  }

  kj::Promise<void> outputEmitted() {
    // Resolves once every chunk taken so far has been emitted, as the sink lets it: the exit and
    // the end wait for it rather than emit a whole backlog's events at once.
    uint64_t chunks = emittedChunks + backlog.size();
    if (emittedChunks >= chunks) return kj::READY_NOW;
    auto paf = kj::newPromiseAndFulfiller<void>();
    emittedWaiters.push_back({chunks, kj::mv(paf.fulfiller)});
    return kj::mv(paf.promise);
  }

  void answerQueries() {
    // Programs block on these answers (DA, DSR): write each back at once, as a terminal would,
    // and report it so the supervisor records it as an automatic interaction.
    for (auto& reply : renderer.takeReplies()) {
      if (reaped || finishing) continue;  // writeToTarget() drops it: nothing was answered
      writeToTarget(reply.reply);
      PtyJobEvent event{PtyJobEvent::Kind::REPLIED, monotonicNowNs()};
      event.reply = kj::mv(reply);
      emit(kj::mv(event));
    }
  }

  void captureFrame(uint64_t atNs) {
    auto frame = renderer.capture(renderBudget);
    if (!frame) return;  // over the rendered budget: counted as truncated by the budget
    ++renderedFrames;
    PtyJobEvent event{PtyJobEvent::Kind::RENDERED, atNs};
    event.rendered = kj::mv(*frame);
    emit(kj::mv(event));
  }

  kj::Promise<void> watchOutput() {
    takeOutput();
    if (drainEnded) return kj::READY_NOW;
    return KJ_ASSERT_NONNULL(readyObserver)->whenBecomesReadable().then([this]() {
      return watchOutput();
    });
  }

  kj::Promise<void> watchExit() {
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

  kj::Promise<void> awaitExitDrain(uint64_t reapedNs, uint64_t chunksBefore) {
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

  kj::Promise<void> drainSynced() {
    // Resolves once the drain thread has queued everything the master holds now (or ended):
    // "quiet" is then the master's state, not only the timer's, which a busy machine can
    // outrun (the thread off the CPU between its read and its queueing).
    if (drainEnded) return kj::READY_NOW;
    syncGeneration = KJ_ASSERT_NONNULL(drain)->requestSync();
    auto paf = kj::newPromiseAndFulfiller<void>();
    synced = kj::mv(paf.fulfiller);
    return kj::mv(paf.promise);
  }

  void emitExit(bool exitedNormally, int status, uint64_t reapedNs) {
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

  void armEvents() {
    // A2: every event is timed from the spawn. One chain in list order (the list is sorted by
    // atMs), so events due at the same moment fire in scenario order.
    tasks.add(timers.wrap(fireFrom(0)).catch_([](kj::Exception&&) {}));
  }

  kj::Promise<void> fireFrom(uint32_t index) {
    if (index >= config.events.size()) return kj::READY_NOW;
    uint64_t dueNs = KJ_ASSERT_NONNULL(target).spawnedAtNs + config.events[index].atMs * NS_PER_MS;
    return sleepUntilNs(timer, dueNs)
        .then([this, index]() -> kj::Promise<void> {
          // A waiting event holds the chain (and so every later event) until it is released.
          if (!config.events[index].waits || released[index] != Release::NONE) {
            return kj::READY_NOW;
          }
          auto paf = kj::newPromiseAndFulfiller<void>();
          waitingIndex = index;
          waiting = kj::mv(paf.fulfiller);
          return kj::mv(paf.promise);
        })
        .then([this, index]() {
          waiting = nullptr;
          if (released[index] == Release::GO || !config.events[index].waits) {
            dispatch(index);
          } else if (released[index] == Release::TIMED_OUT_STOP) {
            timedOut(index, true);
            return kj::Promise<void>(kj::READY_NOW);  // the run ends: nothing later fires
          } else {
            timedOut(index, false);
          }
          return fireFrom(index + 1);
        });
  }

  void release(uint32_t index, bool isTimedOut, bool stop) override {
    if (index >= config.events.size() || !config.events[index].waits || reaped ||
        released[index] != Release::NONE) {
      return;
    }
    released[index] = !isTimedOut ? Release::GO
                      : stop      ? Release::TIMED_OUT_STOP
                                  : Release::TIMED_OUT;
    KJ_IF_MAYBE (w, waiting) {
      if (waitingIndex == index) (*w)->fulfill();
    }
  }

  void timedOut(uint32_t index, bool stop) {
    // Reported, never performed; `stop` ends the run as the watchdog's timeout does.
    if (reaped || fired[index]) return;
    takeOutput(ALL);
    fired[index] = true;
    PtyJobEvent event{PtyJobEvent::Kind::DISPATCHED, monotonicNowNs()};
    event.eventIndex = index;
    event.outcome = PtyJobEvent::Outcome::TIMED_OUT;
    emit(kj::mv(event));
    if (stop) {
      reason = PtyJobEvent::Reason::TIMEOUT;
      sendSignal(KJ_ASSERT_NONNULL(target).pidfd.get(), SIGKILL);
    }
  }

  void dispatch(uint32_t index) {
    if (reaped || fired[index]) return;
    takeOutput(ALL);
    fired[index] = true;
    PtyJobEvent event{PtyJobEvent::Kind::DISPATCHED, monotonicNowNs()};
    event.eventIndex = index;
    event.outcome = perform(config.events[index]) ? PtyJobEvent::Outcome::DISPATCHED
                                                  : PtyJobEvent::Outcome::FAILED;
    bool resized = event.outcome == PtyJobEvent::Outcome::DISPATCHED &&
                   config.events[index].type == PtyJobInteraction::Type::RESIZE;
    emit(kj::mv(event));
    if (resized) {
      // B §6.11: a dispatched resize resizes the emulator and captures a frame at its time.
      renderer.resize(config.events[index].columns, config.events[index].rows);
      captureFrame(lastEmittedNs);
    }
  }

  bool perform(const PtyJobInteraction& interaction) {
    auto& d = *KJ_ASSERT_NONNULL(drain);
    switch (interaction.type) {
      case PtyJobInteraction::Type::INPUT:
        pendingInput.append(interaction.data);
        return waitingWritable || writeInput();
      case PtyJobInteraction::Type::RESIZE: {
        struct winsize size;
        memset(&size, 0, sizeof(size));
        size.ws_col = interaction.columns;
        size.ws_row = interaction.rows;
        return ioctl(d.masterFd(), TIOCSWINSZ, &size) == 0;
      }
      case PtyJobInteraction::Type::SIGNAL: {
        // To the root only (B §6.4); a vanished root is ESRCH, swallowed: still dispatched.
        int error = sendSignal(KJ_ASSERT_NONNULL(target).pidfd.get(), interaction.signal);
        return error == 0 || error == ESRCH;
      }
    }
    KJ_UNREACHABLE;
  }

  bool writeInput() {
    // Writes what it can without blocking; the rest when the master is writable again (a target
    // that does not read its input must not stall the loop). False on a hard write error.
    auto& d = *KJ_ASSERT_NONNULL(drain);
    while (!pendingInput.empty()) {
      ssize_t n = ::write(d.masterFd(), pendingInput.data(), pendingInput.size());
      if (n > 0) {
        pendingInput.erase(0, size_t(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && errno == EAGAIN) {
        if (writeObserver == nullptr) {
          writeObserver = kj::heap<kj::UnixEventPort::FdObserver>(
              io.unixEventPort, d.masterFd(), kj::UnixEventPort::FdObserver::OBSERVE_WRITE);
        }
        waitingWritable = true;
        tasks.add(KJ_ASSERT_NONNULL(writeObserver)->whenBecomesWritable().then([this]() {
          waitingWritable = false;
          writeInput();
        }));
        return true;
      } else {
        pendingInput.clear();  // EIO: nobody holds the slave any more
        return false;
      }
    }
    return true;
  }

  kj::Promise<void> watchdog() {
    // B §6.6.1, every 20 ms until the exit: the kill repeats each tick, the last reason wins.
    return timer.afterDelay(WATCHDOG_PERIOD).then([this]() -> kj::Promise<void> {
      if (reaped) return kj::READY_NOW;
      takeOutput();
      uint64_t nowNs = monotonicNowNs();
      bool kill = true;
      auto since = [nowNs](uint64_t thenNs) { return nowNs > thenNs ? nowNs - thenNs : 0; };
      if (since(config.t0Ns) >= config.timeoutMs * NS_PER_MS) {
        reason = PtyJobEvent::Reason::TIMEOUT;
      } else if (since(lastOutputNs) >= config.idleTimeoutMs * NS_PER_MS) {
        reason = PtyJobEvent::Reason::IDLE_TIMEOUT;
      } else {
        kill = false;
      }
      if (kill) sendSignal(KJ_ASSERT_NONNULL(target).pidfd.get(), SIGKILL);
      return watchdog();
    });
  }
};

}  // namespace

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
