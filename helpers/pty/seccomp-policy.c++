#include "helpers/pty/seccomp-policy.h"

#include <signal.h>
#include <sys/ioctl.h>

namespace rea::helper {

SeccompPolicy ptySeccompPolicy() {
  SeccompPolicy policy("pty");
  // The event loop, RPC on fd 3, malloc, clocks, mutexes: every helper's baseline.
  policy.baseline();
  // DrainThread::run: poll(master, wake eventfd) then read (glibc may use either poll call).
  policy.allow("pty-drain", "poll").allow("pty-drain", "ppoll");
  // PtyJobImpl::perform RESIZE: TIOCSWINSZ on the master, no other ioctl.
  policy.allowIf("pty-resize", "ioctl", argEquals(1, TIOCSWINSZ, "TIOCSWINSZ"));
  // Signal events (SIGINT, SIGTERM) and the watchdog / finish kill (SIGKILL), to the root's
  // pidfd only.
  policy.allowIf("pty-signal", "pidfd_send_signal", argEquals(1, SIGINT, "SIGINT"))
      .allowIf("pty-signal", "pidfd_send_signal", argEquals(1, SIGTERM, "SIGTERM"))
      .allowIf("pty-signal", "pidfd_send_signal", argEquals(1, SIGKILL, "SIGKILL"));
  // PtyJobImpl::watchExit: waitid(P_PIDFD, ...) on the root.
  policy.allowIf("pty-reap", "waitid", argEquals(0, 3, "P_PIDFD"));
  return policy;
}

}  // namespace rea::helper
