#include "helpers/common/system/sleep.h"

#include <errno.h>
#include <time.h>

namespace rea::helper {

void sleepMs(long ms) {
  struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

}  // namespace rea::helper
