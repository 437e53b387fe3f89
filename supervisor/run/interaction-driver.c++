#include "supervisor/run/interaction-driver.h"

#include <kj/debug.h>

#include "helpers/common/clock.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

bool planWaits(const InteractionPlan& plan) {
  for (const auto& event : plan.events) {
    if (event.when) return true;
  }
  return false;
}

InteractionDriver::InteractionDriver(kj::AsyncIoContext& io, InteractionPlan planIn)
    : io(io),
      plan(kj::mv(planIn)),
      records(plan.events.size()),
      timers(kj::heap<kj::TaskSet>(static_cast<kj::TaskSet::ErrorHandler&>(*this))) {}

InteractionDriver::~InteractionDriver() noexcept(false) {
  timers = nullptr;
}

void InteractionDriver::attach(PtyLink& pty) {
  link = pty;
}

void InteractionDriver::spawned(pid_t rootPid, const std::string& tempRoot) {
  evidence::NormaliseContext context = plan.terminalContext;
  context.temporaryRoot = tempRoot;
  context.pids = {rootPid};
  chunks.emplace(context);
  lines.emplace(context);
  uint64_t now = monotonicNowNs();
  arm(0);
  for (const auto& chunk : std::exchange(pendingChunks, {})) {
    feedOutput(chunks->push(chunk), now);
  }
  if (pendingScreen) {
    screen.clear();
    for (const auto& line : *pendingScreen)
      screen.push_back((*lines)(line));
    pendingScreen.reset();
    feedScreen(now);
  }
}

void InteractionDriver::output(const PtyChunk& chunk) {
  if (over) return;
  if (!chunks) {
    pendingChunks.push_back(chunk.data);
    return;
  }
  feedOutput(chunks->push(chunk.data), chunk.atNs);
}

void InteractionDriver::rendered(const PtyRenderedFrame& frame) {
  if (over) return;
  if (!lines) {
    pendingScreen = frame.lines;
    return;
  }
  screen.clear();
  for (const auto& line : frame.lines)
    screen.push_back((*lines)(line));
  feedScreen(frame.atNs);
}

void InteractionDriver::checkpointTriggered(const std::string& name) {
  checkpoints.insert(name);
  if (watch && watch->checkpoint(name)) held(monotonicNowNs());
}

void InteractionDriver::dispatched(const PtyDispatch& dispatch) {
  if (over || dispatch.eventIndex != armed) return;
  arm(armed + 1);
}

void InteractionDriver::exited(const PtyExit& exit) {
  // The helper reports every event not yet fired as target_exited: nothing more is released.
  rootExited = true;
  if (watch && watch->rootExited()) held(exit.atNs);
  over = true;
  watch.reset();
}

void InteractionDriver::lost(const HelperFault&) {
  over = true;
  watch.reset();
}

void InteractionDriver::arm(size_t index) {
  armed = index;
  watch.reset();
  timers = kj::heap<kj::TaskSet>(static_cast<kj::TaskSet::ErrorHandler&>(
      *this));  // the previous event's timeout and delay are moot
  if (index >= plan.events.size() || over) return;
  const evidence::Event& event = plan.events[index];
  if (!event.when) return;  // the helper fires it at its at_ms
  records[index].armedAtNs = monotonicNowNs();
  watch.emplace(*event.when);
  if (event.timeoutMs) {
    timers->add(io.provider->getTimer()
                    .afterDelay(*event.timeoutMs * kj::MILLISECONDS)
                    .then([this, index]() {
                      if (armed != index || !watch) return;
                      watch.reset();
                      release(index, true);
                    }));
  }
  // A state that already holds counts at once; output counts from now on.
  bool holds = watch->screen(screen);
  for (const auto& name : checkpoints)
    holds = watch->checkpoint(name) || holds;
  if (holds) held(monotonicNowNs());
}

void InteractionDriver::feedOutput(const std::string& normalised, uint64_t atNs) {
  if (normalised.empty() || !watch || !watch->watchesOutput()) return;
  if (watch->output(normalised)) held(atNs);
}

void InteractionDriver::feedScreen(uint64_t atNs) {
  if (!watch || !watch->watchesScreen()) return;
  if (watch->screen(screen)) held(atNs);
}

void InteractionDriver::held(uint64_t atNs) {
  size_t index = armed;
  watch.reset();
  records[index].heldAtNs = atNs;
  int64_t delayMs = plan.events[index].delayMs;
  if (delayMs == 0) {
    release(index, false);
    return;
  }
  // A fresh task set: the timeout must not fire during the delay.
  timers = kj::heap<kj::TaskSet>(static_cast<kj::TaskSet::ErrorHandler&>(*this));
  timers->add(io.provider->getTimer()
                  .afterDelay(uint64_t(delayMs) * kj::MILLISECONDS)
                  .then([this, index]() {
                    if (armed == index) release(index, false);
                  }));
}

void InteractionDriver::release(size_t index, bool timedOut) {
  if (over) return;
  KJ_IF_MAYBE (l, link) {
    bool stop = timedOut && plan.events[index].onTimeout == evidence::OnTimeout::STOP;
    l->release(uint32_t(index), timedOut, stop);
  }
}

void InteractionDriver::taskFailed(kj::Exception&& exception) {
  KJ_LOG(ERROR, "interaction driver task failed", exception);
}

}  // namespace rea::supervisor
