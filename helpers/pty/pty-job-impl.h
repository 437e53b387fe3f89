#pragma once
// PtyJobImpl, the one implementation of PtyJob (pty-job.h), shared by the three files that define
// it: pty-job.c++ (start-up, the root's exit, the watchdog, finish), pty-job-output.c++ (output:
// the drain thread's chunks through the renderer to the sink) and pty-job-events.c++ (scripted
// interactions and input). Private to helpers/pty: nothing outside includes it.

#include <kj/async-unix.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <vector>

#include "helpers/common/clock.h"
#include "helpers/pty/drain-thread.h"
#include "helpers/pty/pty-job.h"
#include "helpers/pty/screen-budget.h"
#include "helpers/pty/target.h"

namespace rea::helper {

namespace pty_job {

const uint64_t NS_PER_MS = 1000000;

inline kj::ForkedPromise<void> makeSignal(kj::Own<kj::PromiseFulfiller<void>>& fulfiller) {
  auto paf = kj::newPromiseAndFulfiller<void>();
  fulfiller = kj::mv(paf.fulfiller);
  return paf.promise.fork();
}

inline int sendSignal(int pidfd, int signal) {
  // Returns 0 or the errno.
  return syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0) == 0 ? 0 : errno;
}

}  // namespace pty_job

class PtyJobImpl final : public PtyJob, private kj::TaskSet::ErrorHandler {
 public:
  PtyJobImpl(kj::AsyncIoContext& io, PtyJobConfig config, PtyJobSink& sink)
      : io(io),
        timer(io.provider->getTimer()),
        config(kj::mv(config)),
        sink(sink),
        exitedSignal(pty_job::makeSignal(exitedFulfiller)),
        drainedSignal(pty_job::makeSignal(drainedFulfiller)),
        failedSignal(pty_job::makeSignal(failedFulfiller)),
        renderer(this->config.columns, this->config.rows, int(this->config.scrollback)),
        renderBudget(this->config.renderMaxFrames, this->config.renderMaxBytes),
        tasks(*this) {
    if (this->config.t0Ns == 0) this->config.t0Ns = monotonicNowNs();
    lastOutputNs = this->config.t0Ns;
    fired.resize(this->config.events.size(), false);
    released.resize(this->config.events.size(), Release::NONE);
  }

  ~PtyJobImpl() noexcept(false);

  void begin(kj::Function<void()> afterSpawn);

  // implements PtyJob ---------------------------------------------------------------------

  pid_t rootPid() const override { return KJ_ASSERT_NONNULL(target).pid; }
  uint64_t spawnedAtNs() const override { return KJ_ASSERT_NONNULL(target).spawnedAtNs; }
  kj::Promise<void> whenExited() override { return exitedSignal.addBranch(); }

  void writeToTarget(std::string bytes) override;
  kj::Promise<void> whenDrained() override { return drainedSignal.addBranch(); }
  kj::Promise<void> whenFailed() override { return failedSignal.addBranch(); }

  kj::Promise<PtyJobSummary> finish() override;

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

  // The output path (pty-job-output.c++): drain thread -> renderer -> sink, in read order.
  void emit(PtyJobEvent&& event);

  enum Emit { AS_SINK_WANTS, ALL };

  void takeOutput(Emit emitting = AS_SINK_WANTS);

  void emitBacklog(Emit emitting);

  kj::Promise<void> outputEmitted();

  void answerQueries();

  void captureFrame(uint64_t atNs);

  kj::Promise<void> watchOutput();

  // The root's exit and the watchdog (pty-job.c++).
  kj::Promise<void> watchExit();

  kj::Promise<void> awaitExitDrain(uint64_t reapedNs, uint64_t chunksBefore);

  kj::Promise<void> drainSynced();

  void emitExit(bool exitedNormally, int status, uint64_t reapedNs);

  // Scripted interactions and input (pty-job-events.c++).
  void armEvents();

  kj::Promise<void> fireFrom(uint32_t index);

  void release(uint32_t index, bool isTimedOut, bool stop) override;

  void timedOut(uint32_t index, bool stop);

  void dispatch(uint32_t index);

  bool perform(const PtyJobInteraction& interaction);

  bool writeInput();

  kj::Promise<void> watchdog();
};

}  // namespace rea::helper
