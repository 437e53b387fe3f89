// PtyJobImpl's scripted interactions (A2: each timed from the spawn, one chain in list order,
// a waiting event holding the chain until released) and the input written to the target.

#include <errno.h>
#include <kj/debug.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>

#include "helpers/pty/pty-job-impl.h"

namespace rea::helper {

void PtyJobImpl::writeToTarget(std::string bytes) {
  if (reaped || finishing) return;
  pendingInput.append(bytes);
  if (!waitingWritable) writeInput();
}

void PtyJobImpl::armEvents() {
  // A2: every event is timed from the spawn. One chain in list order (the list is sorted by
  // atMs), so events due at the same moment fire in scenario order.
  tasks.add(timers.wrap(fireFrom(0)).catch_([](kj::Exception&&) {}));
}

kj::Promise<void> PtyJobImpl::fireFrom(uint32_t index) {
  if (index >= config.events.size()) return kj::READY_NOW;
  uint64_t dueNs =
      KJ_ASSERT_NONNULL(target).spawnedAtNs + config.events[index].atMs * pty_job::NS_PER_MS;
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

void PtyJobImpl::release(uint32_t index, bool isTimedOut, bool stop) {
  if (index >= config.events.size() || !config.events[index].waits || reaped ||
      released[index] != Release::NONE) {
    return;
  }
  released[index] = !isTimedOut ? Release::GO : stop ? Release::TIMED_OUT_STOP : Release::TIMED_OUT;
  KJ_IF_MAYBE (w, waiting) {
    if (waitingIndex == index) (*w)->fulfill();
  }
}

void PtyJobImpl::timedOut(uint32_t index, bool stop) {
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
    pty_job::sendSignal(KJ_ASSERT_NONNULL(target).pidfd.get(), SIGKILL);
  }
}

void PtyJobImpl::dispatch(uint32_t index) {
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

bool PtyJobImpl::perform(const PtyJobInteraction& interaction) {
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
      int error = pty_job::sendSignal(KJ_ASSERT_NONNULL(target).pidfd.get(), interaction.signal);
      return error == 0 || error == ESRCH;
    }
  }
  KJ_UNREACHABLE;
}

bool PtyJobImpl::writeInput() {
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

}  // namespace rea::helper
