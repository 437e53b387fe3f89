#pragma once
// The one clock every helper stamps its observations with: CLOCK_MONOTONIC in nanoseconds. It is
// shared by all processes on the machine, so the supervisor can merge streams from different
// helpers by timestamp and relate them to its own T0 (ARCHITECTURE "Data flow" step 3).
//
// Errors: none (clock_gettime on CLOCK_MONOTONIC cannot fail on Linux).

#include <cstdint>
#include <kj/async.h>
#include <kj/time.h>
#include <kj/timer.h>

namespace rea::helper {

uint64_t monotonicNowNs();
// CLOCK_MONOTONIC now, in nanoseconds. Async-signal-safe, no allocation; through the vDSO it
// costs no syscall (and so needs no seccomp rule beyond allowClock()).

inline kj::Duration nsUntil(uint64_t deadlineNs, uint64_t nowNs) {
  return deadlineNs > nowNs ? int64_t(deadlineNs - nowNs) * kj::NANOSECONDS : 0 * kj::NANOSECONDS;
}
// Delay from `nowNs` to `deadlineNs` for kj::Timer::afterDelay, zero when already past.

kj::Promise<void> sleepUntilNs(kj::Timer& timer, uint64_t deadlineNs);
// Resolves once CLOCK_MONOTONIC has reached `deadlineNs`, never earlier. (kj's timer measures
// from the loop's last wake-up, which may lie milliseconds in the past after a long synchronous
// step such as a fork; this re-arms for the remainder instead of firing early.) `timer`
// outlives the promise.

}  // namespace rea::helper
