#pragma once
// BatchingSink<Event>: collects a helper's observations and pushes them to the supervisor in
// batches, because one RPC per event costs ~45 µs while a batch of hundreds reaches hundreds of
// MB/s (MACHINE-NOTES §2d). A batch goes out when it reaches `maxBytes` or `maxEvents`, when
// `maxDelay` has passed since its first event, or on flush(); a batch never holds more than
// `maxEvents` events, nor more than `maxBytes` plus one event. At most one batch is in flight:
// the next waits until the previous send resolved (the `-> stream` flow control of STYLE §4).
// Owns the pending events and its background send task; the send function is the caller's
// (a helper's server converts the batch to its schema there; --standalone prints it).
//
// Errors: the first failed send fails the sink: whenFailed() rejects with it, later add() calls
// are dropped and end() rejects. A helper joins whenFailed() into its main promise so it exits
// and the supervisor learns why (STYLE §4 "a failed batch push fails the helper's main promise").

#include <kj/async.h>
#include <kj/function.h>
#include <kj/timer.h>
#include <kj/vector.h>

#include "helpers/common/fault-injection.h"

namespace rea::helper {

struct BatchLimits {
  size_t maxBytes = 64 * 1024;
  size_t maxEvents = 4096;
  kj::Duration maxDelay = 5 * kj::MILLISECONDS;
};

template <typename Event>
class BatchingSink final : private kj::TaskSet::ErrorHandler {
 public:
  using Send = kj::Function<kj::Promise<void>(kj::Array<Event> batch)>;

  BatchingSink(kj::Timer& timer, Send send, BatchLimits limits = {})
      : timer(timer),
        send(kj::mv(send)),
        limits(limits),
        failed(makeFailed(failFulfiller)),
        tasks(*this) {}
  // `timer` outlives the sink.

  KJ_DISALLOW_COPY(BatchingSink);

  void add(Event event, size_t bytes) {
    // Queues one event; `bytes` is its payload size for the size trigger.
    if (error != nullptr) return;
    pending.add(Entry{kj::mv(event), bytes});
    pendingBytes += bytes;
    if (pending.size() >= limits.maxEvents || pendingBytes >= limits.maxBytes) {
      flush();
    } else if (!timerArmed) {
      timerArmed = true;
      tasks.add(timer.afterDelay(limits.maxDelay).then([this]() {
        timerArmed = false;
        flush();
      }));
    }
  }

  void flush() {
    // Sends what is pending as soon as no batch is in flight (events of note: an exit).
    wantFlush = true;
    pump();
  }

  kj::Promise<void> end() {
    // Flushes everything; resolves once the last send resolved. add() after end() is a bug.
    KJ_IF_MAYBE (e, error) {
      return kj::cp(*e);
    }
    ending = true;
    auto paf = kj::newPromiseAndFulfiller<void>();
    endFulfiller = kj::mv(paf.fulfiller);
    flush();
    return kj::mv(paf.promise);
  }

  kj::Promise<void> whenFailed() { return failed.addBranch(); }
  // Rejects with the first send failure; never resolves otherwise.

  size_t pendingCount() const { return pending.size(); }
  size_t pendingSize() const { return pendingBytes; }
  // Events added and not yet handed to a send, and the sum of their `bytes`.

  kj::Promise<void> whenPendingBelow(size_t bytes) {
    // Resolves once pendingSize() < `bytes` (at once if it is), or once the sink failed: the
    // producer's flow control (a helper that would otherwise queue events faster than its sends
    // drain them). One waiter at a time: a second call resolves the first (its caller looks at
    // pendingSize() again anyway).
    if (pendingBytes < bytes || error != nullptr) return kj::READY_NOW;
    wakeBelowWaiter();
    auto paf = kj::newPromiseAndFulfiller<void>();
    belowWaiter = kj::mv(paf.fulfiller);
    belowBytes = bytes;
    return kj::mv(paf.promise);
  }

 private:
  kj::Timer& timer;
  Send send;
  BatchLimits limits;
  struct Entry {
    Event event;
    size_t bytes;
  };
  kj::Vector<Entry> pending;
  size_t pendingBytes = 0;
  bool timerArmed = false;
  bool wantFlush = false;
  bool sending = false;
  bool ending = false;
  bool delivered = false;  // a batch was delivered
  kj::Maybe<kj::Exception> error;
  kj::Own<kj::PromiseFulfiller<void>> failFulfiller;
  kj::ForkedPromise<void> failed;  // after failFulfiller, which its initializer sets
  kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> endFulfiller;
  kj::Maybe<kj::Own<kj::PromiseFulfiller<void>>> belowWaiter;
  size_t belowBytes = 0;
  kj::TaskSet tasks;  // last: destroyed first, before the state its continuations use

  static kj::ForkedPromise<void> makeFailed(kj::Own<kj::PromiseFulfiller<void>>& fulfiller) {
    auto paf = kj::newPromiseAndFulfiller<void>();
    fulfiller = kj::mv(paf.fulfiller);
    return paf.promise.fork();
  }

  void pump() {
    if (sending || error != nullptr) return;
    if (pending.empty()) {
      wantFlush = false;
      if (ending) {
        KJ_IF_MAYBE (f, endFulfiller) {
          (*f)->fulfill();
        }
        endFulfiller = nullptr;
      }
      return;
    }
    bool full = pending.size() >= limits.maxEvents || pendingBytes >= limits.maxBytes;
    if (!wantFlush && !full && !ending) return;
    // A batch stops at maxEvents or once it holds maxBytes (so it exceeds maxBytes by at most
    // one event): what piled up while a send was in flight goes out in several batches.
    kj::Vector<Event> batch;
    size_t taken = 0;
    size_t batchBytes = 0;
    while (taken < pending.size() && taken < limits.maxEvents && batchBytes < limits.maxBytes) {
      batchBytes += pending[taken].bytes;
      batch.add(kj::mv(pending[taken].event));
      ++taken;
    }
    if (taken == pending.size()) {
      pending.clear();
    } else {
      kj::Vector<Entry> rest(pending.size() - taken);
      for (size_t i = taken; i < pending.size(); ++i)
        rest.add(kj::mv(pending[i]));
      pending = kj::mv(rest);
    }
    pendingBytes -= batchBytes;
    wantFlush = !pending.empty();
    if (pendingBytes < belowBytes) wakeBelowWaiter();
    sending = true;
    tasks.add(send(batch.releaseAsArray()).then([this]() {
      sending = false;
      if (!delivered) {
        delivered = true;
        faultPoint(FaultMoment::FIRST_BATCH);  // test-only (fault-injection.h)
      }
      pump();
    }));
  }

  void wakeBelowWaiter() {
    KJ_IF_MAYBE (w, belowWaiter) {
      (*w)->fulfill();
    }
    belowWaiter = nullptr;
  }

  void taskFailed(kj::Exception&& exception) override {
    if (error != nullptr) return;
    error = kj::cp(exception);
    pending.clear();
    pendingBytes = 0;
    wakeBelowWaiter();  // add() drops events from now on: nothing to wait for
    failFulfiller->reject(kj::cp(exception));
    KJ_IF_MAYBE (f, endFulfiller) {
      (*f)->reject(kj::mv(exception));
    }
    endFulfiller = nullptr;
  }
};

}  // namespace rea::helper
