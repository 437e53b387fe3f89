#include "helpers/sampler/seccomp-policy.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <signal.h>

namespace rea::helper {

SeccompPolicy samplerSeccompPolicy() {
  SeccompPolicy policy("sampler");
  // The event loop, RPC on fd 3, malloc, clocks, mutexes: every helper's baseline.
  policy.baseline();
  // proc-stat.c++ (stat, cmdline, environ, task/*/children of the target's processes; the /proc
  // listing) and capture-cgroup.c++ (cgroup.procs, cgroup.events): read-only opens only. The
  // files that are written (cgroup.kill) were opened before the lock-down.
  policy.allowIf("proc-read", "openat",
                 argMaskClear(2, O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND,
                              "O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND"));
  policy.allow("proc-read", "getdents64")
      .allow("proc-read", "fstat")
      .allow("proc-read", "newfstatat");
  policy.allow("proc-read", "lseek");
  // ProcConnector::readAvailable: poll(0) on the netlink socket before each recv.
  policy.allow("proc-events", "poll").allow("proc-events", "ppoll");
  // ProcessObserver::RealtimeBoost: SCHED_FIFO while observing, restored afterwards.
  policy.allow("realtime", "sched_getscheduler")
      .allow("realtime", "sched_getparam")
      .allow("realtime", "sched_setscheduler");
  // ownership.c++: pidfd_open, the liveness probe (signal 0) and SIGKILL of owned processes.
  policy.allow("ownership", "pidfd_open");
  policy.allowIf("ownership", "pidfd_send_signal", argEquals(1, 0, "0"))
      .allowIf("ownership", "pidfd_send_signal", argEquals(1, SIGKILL, "SIGKILL"));
  // exec-notifier.c++: the seccomp listener's receive, validity check and answer, and the
  // paused caller's argv (process_vm_readv, read only). The listener itself comes on the exec
  // channel (recvmsg, in the baseline).
  policy
      .allowIf("exec-notify", "ioctl",
               argEquals(1, SECCOMP_IOCTL_NOTIF_RECV, "SECCOMP_IOCTL_NOTIF_RECV"))
      .allowIf("exec-notify", "ioctl",
               argEquals(1, SECCOMP_IOCTL_NOTIF_SEND, "SECCOMP_IOCTL_NOTIF_SEND"))
      .allowIf("exec-notify", "ioctl",
               argEquals(1, SECCOMP_IOCTL_NOTIF_ID_VALID, "SECCOMP_IOCTL_NOTIF_ID_VALID"));
  policy.allow("exec-notify", "process_vm_readv");
  // CaptureCgroup::remove: rmdir of the capture cgroup once it is empty.
  policy.allow("cgroup", "rmdir");
  return policy;
}

}  // namespace rea::helper
