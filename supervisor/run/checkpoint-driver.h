#pragma once
// CheckpointDriver: the checkpoint coordinator of SPEC B §6.10 on the supervisor side. Owns the
// FswatchLink (when roots are declared), the serial chain of snapshots, the time-trigger timers,
// one terminal-literal trigger per literal checkpoint (fed with the normalised chunks, exactly
// the frames' text), and the record of every checkpoint taken. fswatch only walks and hashes;
// the triggers and the effects between checkpoints are decided here and in assembly.
//
// Order of calls in a capture (capture-run.c++):
//   takeBefore()            PREPARE, before the temp root exists: the `before` snapshot
//   start(t0, tempRoot, cgroupPath)
//                           at T0: arms the `time` triggers; the capture cgroup (when there is
//                           one) lets each declared checkpoint hold the target (target-freezer.h)
//   spawned(rootPid)        the literal triggers now normalise like the frames (pid known)
//   output(chunk)           PtyObserver: each PTY read, counted by the literal triggers
//   rootExited()            `root_exit` (even on a timeout or a lost pty helper); literal
//                           triggers first see the rest of the output before the exit
//   whenTargetThawed()      settlement starts once no snapshot holds the target
//   settled()               `settled`
//   finish()                cancels the timers, waits for the chain, takes AFTER
//                           (`after_settlement`) and stops the helper
//
// A checkpoint is captured at most once; snapshots are queued on one chain and taken in order;
// each is recorded when it completes, with its completion time. A declared checkpoint freezes
// the target when its trigger fires and thaws it when its snapshot is done, so the snapshot
// shows the target as it was at the trigger, not as it was when a busy machine got round to it. A
// snapshot that cannot read an entry poisons the chain (later snapshots are skipped) and
// record().failure makes the capture fail. A lost helper (A13) leaves record().lost set;
// `before`/`after_settlement` are then recorded as `missing` (files unknown, truncated) and
// declared checkpoints after the loss are absent.
//
// Errors: nothing throws after construction (which throws FAILED on out-of-range roots/limits).

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <kj/async-io.h>
#include <kj/function.h>

#include "evidence/file-effects.h"
#include "evidence/literal-trigger.h"
#include "evidence/chunk-normaliser.h"
#include "evidence/normalise.h"
#include "evidence/scenario.h"
#include "supervisor/links/fswatch-link.h"
#include "supervisor/links/pty-link.h"
#include "supervisor/run/target-freezer.h"

namespace rea::supervisor {

struct CheckpointPlan {
  std::vector<std::string> roots;  // scenario filesystem_roots (aliases root_<i>)
  FswatchLimits limits;
  std::vector<evidence::CheckpointDeclaration> checkpoints;  // scenario order
  uint64_t snapshotDeadlineMs = 120000;
  // How long one snapshot may take before the fswatch helper counts as stalled (A13). The
  // capture sets it from timeout_ms, so a stalled helper cannot hold rea long past its deadline.
  evidence::NormaliseContext terminalContext;
  // The frames' normalisation context without its run-time parts (temp root, root pid), which
  // the driver fills in: a literal is matched against the normalised chunk text (B §4.6.1).
};

struct CheckpointRecord {
  std::string name;
  uint64_t atNs = 0;  // CLOCK_MONOTONIC when the snapshot finished; 0 for `before` (at_ms 0)
  std::vector<evidence::SnapshotEntry> files;
  bool truncated = false;
  bool missing = false;  // the helper was lost before this snapshot: files unknown
};

struct FilesystemRecord {
  std::vector<CheckpointRecord> checkpoints;
  // In completion order: `before` first and, once finish() resolved, `after_settlement` last.
  std::optional<std::string> failure;  // a snapshot could not read an entry (capture error)
  std::optional<HelperFault> lost;     // the fswatch helper was lost (A13)
};

class CheckpointDriver final : public PtyObserver, private kj::TaskSet::ErrorHandler {
 public:
  CheckpointDriver(kj::AsyncIoContext& io, CheckpointPlan plan,
                   std::string helperDirectory = defaultHelperDirectory());
  ~CheckpointDriver() noexcept(false);
  KJ_DISALLOW_COPY(CheckpointDriver);

  kj::Promise<void> takeBefore();
  // The `before` snapshot (at_ms 0). Resolves when it is recorded, failed or lost.

  bool failed() const { return record_.failure.has_value(); }

  void onTriggered(kj::Function<void(const std::string&)> callback);
  // Told each declared checkpoint's name when its trigger fires (before its snapshot), so an
  // event waiting for it can go (interaction-driver.h).

  void start(uint64_t t0MonoNs, std::string tempRoot, const std::string& cgroupPath = {});
  void spawned(pid_t rootPid);
  void output(const PtyChunk& chunk) override;
  void rootExited();
  kj::Promise<void> whenTargetThawed();
  // Resolves once no checkpoint holds the target (at once without a freezer).
  void settled();

  kj::Promise<void> finish();
  // Resolves (never rejects) once `after_settlement` is recorded (unless the chain failed) and
  // the helper is gone. Triggers after this are ignored. Call once.

  const FilesystemRecord& record() const { return record_; }

 private:
  struct Literal {
    std::string name;
    evidence::LiteralTrigger trigger;
  };

  kj::AsyncIoContext& io;
  CheckpointPlan plan;
  kj::Maybe<kj::Own<FswatchLink>> link;
  FilesystemRecord record_;
  std::set<std::string> captured;
  std::vector<Literal> literals;
  std::vector<std::string> pendingChunks;  // output before spawned(): normalised then
  kj::Maybe<evidence::ChunkNormaliser> normaliser;
  uint64_t t0MonoNs = 0;
  std::string tempRoot;
  pid_t spawnedRootPid = 0;
  bool finishing = false;
  kj::Maybe<kj::Own<TargetFreezer>> freezer;  // before `chain`: its holds live in the chain
  kj::Promise<void> chain = kj::READY_NOW;
  kj::Maybe<kj::Own<kj::TaskSet>> timers;
  kj::Maybe<kj::Function<void(const std::string&)>> triggered;

  void trigger(const std::string& name);
  void triggerKind(size_t variantIndex);
  void feed(const std::string& normalised);
  kj::Promise<void> whenHeld();
  kj::Promise<FswatchOutcome> snapshotOnce(bool final = false);
  void recordOutcome(const std::string& name, FswatchOutcome outcome, bool required);
  void noteLost();
  void taskFailed(kj::Exception&& exception) override;
};

}  // namespace rea::supervisor
