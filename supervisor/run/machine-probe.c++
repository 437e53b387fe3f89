#include "supervisor/run/machine-probe.h"

#include <kj/debug.h>

#include "helpers/common/system/cgroup-mounts.h"

#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <liburing.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace rea::supervisor {
namespace {

std::string errnoText(int error) {
  return std::strerror(error);
}

ProbeResult probePty() {
  ProbeResult r{"pty", false, "", "captures run the target in a PTY", true};
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) {
    r.detail = "posix_openpt failed: " + errnoText(errno);
    r.effect = "captures cannot run";
    return r;
  }
  char name[128];
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, sizeof(name)) != 0) {
    r.detail = "PTY setup failed: " + errnoText(errno);
    r.effect = "captures cannot run";
  } else {
    r.available = true;
    r.detail = std::string("opened ") + name;
  }
  close(master);
  return r;
}

ProbeResult probeProc() {
  ProbeResult r{"proc", false, "", "process observation and ownership checks read /proc", true};
  std::ifstream stat("/proc/self/stat"), environ("/proc/self/environ");
  if (stat.good() && environ.good()) {
    r.available = true;
    r.detail = "/proc/self/stat and /proc/self/environ readable";
  } else {
    r.detail = "/proc is not mounted or not readable";
    r.effect = "captures cannot verify process ownership";
  }
  return r;
}

ProbeResult probeCgroup2() {
  ProbeResult r{"cgroup2", false, "", "", false};
  std::string mount;
  KJ_IF_MAYBE (found, helper::findCgroup2Mount()) {
    mount = *found;
  } else {
    r.detail = "no cgroup2 hierarchy in /proc/self/mountinfo";
    r.effect = "process observation is sampled from /proc";
    return r;
  }
  std::string probe = mount + "/rea-doctor-probe-" + std::to_string(getpid());
  if (mkdir(probe.c_str(), 0755) != 0) {
    r.detail = "mounted at " + mount + " but not writable: " + errnoText(errno);
    r.effect = "process observation is sampled from /proc";
    return r;
  }
  bool killable = access((probe + "/cgroup.kill").c_str(), W_OK) == 0;
  rmdir(probe.c_str());
  r.available = killable;
  r.detail = "mounted at " + mount +
             (killable ? ", writable, cgroup.kill present" : ", writable, but no cgroup.kill");
  r.effect = killable ? "each capture gets its own cgroup: exact membership, cgroup.kill cleanup"
                      : "process observation is sampled from /proc";
  return r;
}

ProbeResult probePidsBound() {
  // Issue 18.7 (helpers/sampler/pids-bound.h): where REA_PROCESS_MAX_PIDS can be enforced.
  ProbeResult r{"pids_bound", false, "", "", false};
  const char* effect = "REA_PROCESS_MAX_PIDS bounds each capture's live processes";
  KJ_IF_MAYBE (mount, helper::findCgroup2Mount()) {
    std::ifstream control(*mount + "/cgroup.subtree_control");
    std::string word;
    while (control >> word) {
      if (word != "pids") continue;
      r.available = true;
      r.detail = "the pids controller is delegated in the cgroup2 hierarchy at " + *mount;
      r.effect = std::string(effect) + " (pids.max of the capture cgroup)";
      return r;
    }
  }
  std::string v1;
  KJ_IF_MAYBE (found, helper::findCgroup1Mount("pids")) {
    v1 = *found;
  } else {
    r.detail = "no pids controller: not delegated in cgroup2, no cgroup v1 pids hierarchy";
    r.effect = "a capture's processes are not bounded (a fork bomb reaches the machine's limits)";
    return r;
  }
  std::string probe = v1 + "/rea-doctor-probe-" + std::to_string(getpid());
  if (mkdir(probe.c_str(), 0755) != 0) {
    r.detail = "cgroup v1 pids hierarchy at " + v1 + ", not writable: " + errnoText(errno);
    r.effect = "a capture's processes are not bounded (a fork bomb reaches the machine's limits)";
    return r;
  }
  rmdir(probe.c_str());
  r.available = true;
  r.detail = "cgroup v1 pids hierarchy at " + v1 + ", writable";
  r.effect = std::string(effect) + " (a v1 pids group of its own)";
  return r;
}

ProbeResult probeProcConnector() {
  ProbeResult r{"proc_connector", false, "", "", false};
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
  if (fd < 0) {
    r.detail = "netlink connector socket failed: " + errnoText(errno);
    r.effect = "short-lived descendants can be missed (sampling)";
    return r;
  }
  sockaddr_nl addr{};
  addr.nl_family = AF_NETLINK;
  addr.nl_groups = CN_IDX_PROC;
  addr.nl_pid = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    r.detail = "cannot bind to the proc connector: " + errnoText(errno);
    r.effect = "short-lived descendants can be missed (sampling)";
  } else {
    // nlmsghdr + cn_msg + the operation, laid out by hand (cn_msg ends in a flexible array).
    alignas(nlmsghdr) char buffer[NLMSG_SPACE(sizeof(cn_msg) + sizeof(proc_cn_mcast_op))] = {};
    auto* header = reinterpret_cast<nlmsghdr*>(buffer);
    auto* message = reinterpret_cast<cn_msg*>(NLMSG_DATA(header));
    header->nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + sizeof(proc_cn_mcast_op));
    header->nlmsg_type = NLMSG_DONE;
    message->id.idx = CN_IDX_PROC;
    message->id.val = CN_VAL_PROC;
    message->len = sizeof(proc_cn_mcast_op);
    auto setOp = [&](proc_cn_mcast_op op) {
      std::memcpy(reinterpret_cast<char*>(message) + sizeof(cn_msg), &op, sizeof(op));
    };
    setOp(PROC_CN_MCAST_LISTEN);
    if (send(fd, buffer, header->nlmsg_len, 0) < 0) {
      r.detail = "subscription refused: " + errnoText(errno);
      r.effect = "short-lived descendants can be missed (sampling)";
    } else {
      setOp(PROC_CN_MCAST_IGNORE);
      send(fd, buffer, header->nlmsg_len, 0);
      r.available = true;
      r.detail = "fork/exec/exit events can be subscribed to";
      r.effect = "every fork, exec and exit of the target's tree is recorded";
    }
  }
  close(fd);
  return r;
}

// Runs `fn` in a forked child and reports whether it exited 0 (and the errno it exited with).
template <typename Fn>
int inChild(Fn fn) {
  pid_t pid = fork();
  if (pid < 0) return errno;
  if (pid == 0) _exit(fn());
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return -1;
}

ProbeResult probeNetns() {
  ProbeResult r{"netns", false, "", "", false};
  int direct = inChild([] { return unshare(CLONE_NEWNET) == 0 ? 0 : errno; });
  if (direct == 0) {
    r.available = true;
    r.detail = "unshare(CLONE_NEWNET) works directly";
  } else {
    int viaUser = inChild([] { return unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : errno; });
    if (viaUser == 0) {
      r.available = true;
      r.detail = "network namespaces through a user namespace";
    } else {
      r.detail = "unshare(CLONE_NEWNET) refused: " + errnoText(direct > 0 ? direct : EPERM);
    }
  }
  r.effect = r.available ? "network_access \"loopback\" runs the target with only lo"
                         : "network_access \"loopback\" scenarios are refused before launch";
  return r;
}

ProbeResult probeIoUring() {
  ProbeResult r{"io_uring", false, "", "", false};
  io_uring ring;
  int rc = io_uring_queue_init(4, &ring, 0);
  if (rc == 0) {
    io_uring_queue_exit(&ring);
    r.available = true;
    r.detail = "io_uring_queue_init works";
    r.effect = "filesystem snapshots may batch openat/read/close";
  } else {
    r.detail = "io_uring unavailable: " + errnoText(-rc);
    r.effect = "filesystem snapshots use plain system calls";
  }
  return r;
}

ProbeResult probeSeccomp() {
  ProbeResult r{"seccomp", false, "", "", false};
  int rc = inChild([] {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == nullptr) return 1;
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mkdir), 0) != 0) return 2;
    if (seccomp_load(ctx) != 0) return 3;
    return mkdir("/nonexistent-rea-probe", 0700) != 0 && errno == EPERM ? 0 : 4;
  });
  r.available = rc == 0;
  r.detail = rc == 0 ? "filters load and take effect" : "filters cannot be loaded";
  r.effect = rc == 0 ? "each helper runs under its own syscall filter"
                     : "helpers run without syscall filters";
  return r;
}

ProbeResult probeExecNotify() {
  // The target's own install (helpers/pty/exec-filter.c++): a filter with a listener, with
  // no_new_privs only when the kernel insists (no CAP_SYS_ADMIN).
  ProbeResult r{"exec_notify", false, "", "", false};
  bool needsNoNewPrivs = false;
  int rc = inChild([] {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == nullptr) return 1;
    if (seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execve), 0) != 0) return 2;
    if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0) return 3;
    if (seccomp_load(ctx) == 0) return seccomp_notify_fd(ctx) >= 0 ? 0 : 4;
    if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1) != 0) return 3;
    if (seccomp_load(ctx) == 0) return seccomp_notify_fd(ctx) >= 0 ? 10 : 4;
    return 5;
  });
  if (rc == 10) {
    needsNoNewPrivs = true;
    rc = 0;
  }
  r.available = rc == 0;
  if (r.available) {
    r.detail = needsNoNewPrivs ? "seccomp user notification works, with no_new_privs"
                               : "seccomp user notification works";
    r.effect = needsNoNewPrivs
                   ? "exact mode sees every exec before it happens (exec_observation "
                     "\"seccomp_notify\"); the target runs with no_new_privs, so setuid programs "
                     "in it gain no privileges (REA_EXEC_OBSERVATION=procfs avoids that)"
                   : "exact mode sees every exec before it happens (exec_observation "
                     "\"seccomp_notify\")";
  } else {
    r.detail = "seccomp user notification unavailable (the kernel or the container's profile)";
    r.effect =
        "exact mode reads exec command lines from /proc after the exec (exec_observation "
        "\"procfs\"): on a busy machine short-lived programs may be missing";
  }
  return r;
}

}  // namespace

std::vector<ProbeResult> probeMachine() {
  return {probePty(),   probeProc(),    probeCgroup2(), probePidsBound(), probeProcConnector(),
          probeNetns(), probeIoUring(), probeSeccomp(), probeExecNotify()};
}

}  // namespace rea::supervisor
