#pragma once
// InteractionDriver: the supervisor's half of reactive events (docs/scenario.md, "Events that
// wait"). The pty helper fires timed events itself and holds an event that waits when its turn
// comes; this driver watches that event's condition on what the capture observes, normalised as
// the evidence will be (A3: a pattern never sees a secret), and lets it go through
// PtyLink::release once the condition held (plus delay_ms), or as timed out after timeout_ms.
//
// Arming follows the helper's order: event 0 is armed at the spawn, event i+1 when event i's
// dispatch report arrives (whatever its outcome). Only then is the next condition watched, so an
// output condition counts the output that arrives after the previous event was dispatched.
//
// Order of calls in a capture (capture-run.c++): attach(link) before start; spawned() once the
// target runs; the PtyObserver callbacks as batches arrive; checkpointTriggered() from the
// checkpoint driver; record() after the run.
//
// Errors: nothing throws after construction; a lost helper ends the watching.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <kj/async-io.h>

#include "evidence/chunk-normaliser.h"
#include "evidence/condition-watch.h"
#include "evidence/normalise.h"
#include "evidence/scenario.h"
#include "supervisor/links/pty-link.h"

namespace rea::supervisor {

struct InteractionPlan {
  std::vector<evidence::Event> events;  // the scenario's events, in order
  evidence::NormaliseContext terminalContext;
  // The frames' normalisation context without its run-time parts (temp root, root pid).
};

struct InteractionWaitRecord {
  std::optional<uint64_t> armedAtNs;  // CLOCK_MONOTONIC: when its condition began to be watched
  std::optional<uint64_t> heldAtNs;   // when the condition held (never set when it timed out)
};

bool planWaits(const InteractionPlan& plan);
// True when any event waits (otherwise a capture needs no driver).

class InteractionDriver final : public PtyObserver, private kj::TaskSet::ErrorHandler {
 public:
  InteractionDriver(kj::AsyncIoContext& io, InteractionPlan plan);
  ~InteractionDriver() noexcept(false);
  KJ_DISALLOW_COPY(InteractionDriver);

  void attach(PtyLink& link);
  // The link releases go to; it outlives the driver's last callback.
  void spawned(pid_t rootPid, const std::string& tempRoot);
  void checkpointTriggered(const std::string& name);

  void output(const PtyChunk& chunk) override;
  void dispatched(const PtyDispatch& dispatch) override;
  void exited(const PtyExit& exit) override;
  void rendered(const PtyRenderedFrame& frame) override;
  void lost(const HelperFault& fault) override;

  const std::vector<InteractionWaitRecord>& record() const { return records; }
  // One per scenario event; only events that wait have times.

 private:
  kj::AsyncIoContext& io;
  InteractionPlan plan;
  kj::Maybe<PtyLink&> link;
  std::vector<InteractionWaitRecord> records;
  std::optional<evidence::ChunkNormaliser> chunks;
  std::optional<evidence::Normaliser> lines;
  std::vector<std::string> pendingChunks;                 // output before spawned()
  std::vector<std::string> screen;                        // the latest rendered screen, normalised
  std::optional<std::vector<std::string>> pendingScreen;  // a frame before spawned()
  std::set<std::string> checkpoints;                      // triggered so far
  bool rootExited = false;
  bool over = false;                              // exit, loss: nothing more is released
  size_t armed = SIZE_MAX;                        // the event whose dispatch report is awaited
  std::optional<evidence::ConditionWatch> watch;  // set while `armed` waits and has not held
  kj::Own<kj::TaskSet> timers;  // the armed event's timeout and delay; replaced at each arming

  void arm(size_t index);
  void feedOutput(const std::string& normalised, uint64_t atNs);
  void feedScreen(uint64_t atNs);
  void held(uint64_t atNs);
  void release(size_t index, bool timedOut);
  void taskFailed(kj::Exception&& exception) override;
};

}  // namespace rea::supervisor
