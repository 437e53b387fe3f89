#include "supervisor/run/checkpoint-driver.h"

#include <kj/debug.h>

#include "helpers/common/clock.h"

namespace rea::supervisor {

namespace {

using helper::monotonicNowNs;

const char BEFORE[] = "before";
const char AFTER_SETTLEMENT[] = "after_settlement";

// Indices of evidence::Trigger::kind's alternatives.
constexpr size_t ROOT_EXIT = 2;
constexpr size_t SETTLED = 3;

}  // namespace

CheckpointDriver::CheckpointDriver(kj::AsyncIoContext& io, CheckpointPlan planIn,
                                   std::string helperDirectory)
    : io(io), plan(kj::mv(planIn)) {
  if (!plan.roots.empty()) {
    link = kj::heap<FswatchLink>(io, plan.roots, plan.limits, kj::mv(helperDirectory),
                                 plan.snapshotDeadlineMs * kj::MILLISECONDS);
  }
  for (const auto& checkpoint : plan.checkpoints) {
    if (auto* literal = std::get_if<evidence::TerminalLiteralTrigger>(&checkpoint.trigger.kind)) {
      literals.push_back(
          {checkpoint.name,
           evidence::LiteralTrigger(literal->value, static_cast<uint64_t>(literal->occurrence))});
    }
  }
}

CheckpointDriver::~CheckpointDriver() noexcept(false) {
  timers = nullptr;
}

kj::Promise<void> CheckpointDriver::takeBefore() {
  captured.insert(BEFORE);
  return snapshotOnce().then([this](FswatchOutcome outcome) {
    outcome.atNs = 0;  // B §4.5: `before` is at 0 ms
    recordOutcome(BEFORE, kj::mv(outcome), true);
  });
}

void CheckpointDriver::start(uint64_t t0, std::string tempRootIn, const std::string& cgroupPath) {
  t0MonoNs = t0;
  tempRoot = kj::mv(tempRootIn);
  if (link != nullptr && !plan.checkpoints.empty()) {
    freezer = TargetFreezer::open(io.provider->getTimer(), cgroupPath);
  }
  auto set = kj::heap<kj::TaskSet>(static_cast<kj::TaskSet::ErrorHandler&>(*this));
  auto& timer = io.provider->getTimer();
  for (const auto& checkpoint : plan.checkpoints) {
    if (auto* time = std::get_if<evidence::TimeTrigger>(&checkpoint.trigger.kind)) {
      uint64_t due = t0 + static_cast<uint64_t>(time->atMs) * 1000000u;
      std::string name = checkpoint.name;
      // Never before its at_ms: kj's timer counts a delay from the loop's last wake-up, which
      // can be milliseconds in the past (a checkpoint at 400 ms fired at 390).
      set->add(helper::sleepUntilNs(timer, due).then([this, name]() { trigger(name); }));
    }
  }
  timers = kj::mv(set);
}

void CheckpointDriver::spawned(pid_t rootPid) {
  evidence::NormaliseContext context = plan.terminalContext;
  context.temporaryRoot = tempRoot;
  context.pids = {rootPid};
  spawnedRootPid = rootPid;
  normaliser = evidence::ChunkNormaliser(context);
  auto pending = kj::mv(pendingChunks);
  pendingChunks.clear();
  for (const auto& chunk : pending) {
    feed(KJ_ASSERT_NONNULL(normaliser).push(chunk));
  }
}

void CheckpointDriver::output(const PtyChunk& chunk) {
  if (literals.empty() || finishing) return;
  KJ_IF_MAYBE (n, normaliser) {
    feed(n->push(chunk.data));
  } else {
    pendingChunks.push_back(chunk.data);
  }
}

void CheckpointDriver::feed(const std::string& normalised) {
  if (normalised.empty()) return;
  auto units = evidence::toUtf16(normalised);
  for (auto& literal : literals) {
    if (literal.trigger.feed(std::u16string_view(units))) trigger(literal.name);
  }
}

void CheckpointDriver::rootExited() {
  // A15: everything the root wrote before its exit reached output() already (the pty helper
  // reports the exit after it); release what the normaliser still holds back (a trailing digit
  // run, a prefix of a needle), so a literal at the very end fires before `root_exit`. Output
  // after the exit (a descendant's, A10) starts a new stream.
  KJ_IF_MAYBE (n, normaliser) {
    if (!literals.empty() && !finishing) {
      feed(n->flush());
      evidence::NormaliseContext context = plan.terminalContext;
      context.temporaryRoot = tempRoot;
      context.pids = {spawnedRootPid};
      normaliser = evidence::ChunkNormaliser(context);
    }
  }
  triggerKind(ROOT_EXIT);
}

kj::Promise<void> CheckpointDriver::whenTargetThawed() {
  KJ_IF_MAYBE (f, freezer) {
    return (*f)->whenThawed();
  }
  return kj::READY_NOW;
}

void CheckpointDriver::settled() {
  triggerKind(SETTLED);
}

void CheckpointDriver::triggerKind(size_t variantIndex) {
  for (const auto& checkpoint : plan.checkpoints) {
    if (checkpoint.trigger.kind.index() == variantIndex) trigger(checkpoint.name);
  }
}

void CheckpointDriver::onTriggered(kj::Function<void(const std::string&)> callback) {
  triggered = kj::mv(callback);
}

void CheckpointDriver::trigger(const std::string& name) {
  if (finishing || !captured.insert(name).second) return;
  // Held from now (before anything waiting for this checkpoint goes, below) until its snapshot
  // is recorded: a snapshot queued behind another still shows the target as it was now.
  kj::Own<TargetFreezer::Hold> hold;
  KJ_IF_MAYBE (f, freezer) {
    hold = (*f)->hold();
  }
  KJ_IF_MAYBE (callback, triggered) {
    (*callback)(name);
  }
  chain = kj::mv(chain)
              .then([this, name]() -> kj::Promise<void> {
                // A failed snapshot poisons the chain; a lost helper makes later ones absent.
                if (record_.failure || record_.lost) return kj::READY_NOW;
                return whenHeld()
                    .then([this]() { return snapshotOnce(); })
                    .then([this, name](FswatchOutcome outcome) {
                      recordOutcome(name, kj::mv(outcome), false);
                    });
              })
              .attach(kj::mv(hold))
              .eagerlyEvaluate(nullptr);
}

kj::Promise<void> CheckpointDriver::finish() {
  KJ_REQUIRE(!finishing, "CheckpointDriver::finish called twice");
  finishing = true;
  timers = nullptr;  // B §6.10 finish: remaining time triggers are cancelled
  auto done = kj::mv(chain).then([this]() -> kj::Promise<void> {
    if (record_.failure) return kj::READY_NOW;
    captured.insert(AFTER_SETTLEMENT);
    return snapshotOnce(/*final=*/true).then([this](FswatchOutcome outcome) {
      recordOutcome(AFTER_SETTLEMENT, kj::mv(outcome), true);
    });
  });
  chain = kj::READY_NOW;
  return done.then([this]() -> kj::Promise<void> {
    KJ_IF_MAYBE (l, link) {
      return (*l)->finish().then([this]() { noteLost(); });
    }
    return kj::READY_NOW;
  });
}

kj::Promise<void> CheckpointDriver::whenHeld() {
  KJ_IF_MAYBE (f, freezer) {
    return (*f)->whenFrozen();
  }
  return kj::READY_NOW;
}

kj::Promise<FswatchOutcome> CheckpointDriver::snapshotOnce(bool final) {
  KJ_IF_MAYBE (l, link) {
    return (*l)->snapshot(final);
  }
  // No roots declared: every snapshot is empty and complete, no helper needed.
  FswatchOutcome outcome;
  outcome.kind = FswatchOutcome::Kind::SNAPSHOT;
  outcome.atNs = monotonicNowNs();
  return outcome;
}

void CheckpointDriver::recordOutcome(const std::string& name, FswatchOutcome outcome,
                                     bool required) {
  switch (outcome.kind) {
    case FswatchOutcome::Kind::SNAPSHOT: {
      CheckpointRecord checkpoint;
      checkpoint.name = name;
      checkpoint.atNs = outcome.atNs;
      checkpoint.files = kj::mv(outcome.snapshot.entries);
      checkpoint.truncated = outcome.snapshot.truncated;
      record_.checkpoints.push_back(kj::mv(checkpoint));
      return;
    }
    case FswatchOutcome::Kind::FAILURE:
      if (!record_.failure) record_.failure = fsFailureMessage(outcome.failure);
      return;
    case FswatchOutcome::Kind::LOST: {
      noteLost();
      if (!required) return;  // a declared checkpoint after the loss is absent
      CheckpointRecord checkpoint;
      checkpoint.name = name;
      checkpoint.atNs = outcome.atNs;
      checkpoint.truncated = true;
      checkpoint.missing = true;
      record_.checkpoints.push_back(kj::mv(checkpoint));
      return;
    }
  }
}

void CheckpointDriver::noteLost() {
  KJ_IF_MAYBE (l, link) {
    KJ_IF_MAYBE (fault, (*l)->fault()) {
      record_.lost = *fault;
    }
  }
}

void CheckpointDriver::taskFailed(kj::Exception&& exception) {
  // A timer continuation failing is a bug of ours; the checkpoint is simply not taken.
  KJ_LOG(ERROR, "checkpoint timer failed", exception);
}

}  // namespace rea::supervisor
