#include "helpers/common/clock.h"

#include <time.h>

namespace rea::helper {

uint64_t monotonicNowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

kj::Promise<void> sleepUntilNs(kj::Timer& timer, uint64_t deadlineNs) {
  uint64_t nowNs = monotonicNowNs();
  if (nowNs >= deadlineNs) return kj::READY_NOW;
  return timer.afterDelay(nsUntil(deadlineNs, nowNs)).then([&timer, deadlineNs]() {
    return sleepUntilNs(timer, deadlineNs);
  });
}

}  // namespace rea::helper
