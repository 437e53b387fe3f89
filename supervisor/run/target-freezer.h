#pragma once
// TargetFreezer: holds a capture's target still while a checkpoint's snapshot is taken, with the
// cgroup v2 freezer of the capture cgroup (`cgroup.freeze`, `cgroup.events`).
//
// Why: a checkpoint is triggered by something rea sees (a literal in the output, a time, the
// root's exit), and its snapshot is taken afterwards, by another process. Without a hold, what
// the snapshot shows depends on how long that took: on a busy machine the target had already
// gone on (the `files` example deleted the file the `saved` checkpoint should show). With it,
// the snapshot shows the target as it was when rea saw the trigger, whatever the load. Frozen
// processes do not notice (no signal, no stop state a parent could see); their clocks go on.
//
// Holds nest: the cgroup is frozen while at least one Hold exists. Where the capture has no
// cgroup (sampled process observation, which the manifest says) or the kernel refuses, open()
// gives nullptr and checkpoints are taken without a hold, as before.
//
// Errors: nothing throws. A write the kernel refuses after open() ends the holding for the rest
// of the capture (broken()); the target is then never left frozen by us.

#include <cstdint>
#include <string>
#include <vector>

#include <kj/async-io.h>
#include <kj/io.h>
#include <kj/memory.h>
#include <kj/timer.h>

namespace rea::supervisor {

class TargetFreezer {
 public:
  static kj::Maybe<kj::Own<TargetFreezer>> open(kj::Timer& timer, const std::string& cgroupPath);
  // nullptr when the path is empty or its cgroup.freeze / cgroup.events cannot be opened.

  TargetFreezer(kj::Timer& timer, kj::AutoCloseFd freezeFile, kj::AutoCloseFd eventsFile);
  KJ_DISALLOW_COPY(TargetFreezer);

  class Hold {
   public:
    explicit Hold(TargetFreezer& freezer) : freezer(freezer) {}
    ~Hold() noexcept(false) { freezer.release(); }
    KJ_DISALLOW_COPY(Hold);

   private:
    TargetFreezer& freezer;
  };

  kj::Own<Hold> hold();
  // Freezes at once (a write, before this returns): what the target does after this call is not
  // in a snapshot taken while the Hold lives. The last Hold dropped thaws; none may outlive the
  // freezer (CheckpointDriver keeps its holds in its chain, which it destroys first).

  kj::Promise<void> whenFrozen();
  // Resolves once the kernel reports every process of the cgroup frozen (`frozen 1`), or after
  // FROZEN_WAIT_LIMIT (a task in an uninterruptible wait freezes late): the snapshot is then
  // taken regardless. Resolves at once when not holding or broken.

  kj::Promise<void> whenThawed();
  // Resolves once no Hold is left (at once when none is): settlement waits for it, so a
  // snapshot's hold does not eat into the time the target's descendants have to end.

  bool broken() const { return broken_; }

  static constexpr kj::Duration FROZEN_WAIT_LIMIT = 1 * kj::SECONDS;
  static constexpr kj::Duration FROZEN_POLL = 1 * kj::MILLISECONDS;

 private:
  kj::Timer& timer;
  kj::AutoCloseFd freezeFile;
  kj::AutoCloseFd eventsFile;
  uint32_t holds = 0;
  bool broken_ = false;
  std::vector<kj::Own<kj::PromiseFulfiller<void>>> thawWaiters;

  void release();
  void write(char state);
  bool writeState(char state);
  bool frozen();
  kj::Promise<void> pollFrozen(kj::TimePoint giveUpAt);
};

}  // namespace rea::supervisor
