#include "helpers/replay/loopback-netns.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <kj/debug.h>

namespace rea::helper {
namespace {

// What the child reports through its pipe: which step it reached and the errno of any failure.
enum class Step : int {
  READY = 0,
  UNSHARE_NET = 1,
  UNSHARE_USER_NET = 2,
  SETGROUPS = 3,
  UID_MAP = 4,
  GID_MAP = 5,
  LO_SOCKET = 6,
  LO_GET_FLAGS = 7,
  LO_SET_FLAGS = 8,
};

struct Report {
  Step step;
  int directErrno;  // errno of unshare(CLONE_NEWNET), 0 when it worked
  int error;        // errno of `step` (0 for READY)
  bool viaUser;
};

const char* stepText(Step step) {
  switch (step) {
    case Step::READY:
      return "ready";
    case Step::UNSHARE_NET:
      return "unshare(CLONE_NEWNET)";
    case Step::UNSHARE_USER_NET:
      return "unshare(CLONE_NEWUSER|CLONE_NEWNET)";
    case Step::SETGROUPS:
      return "writing /proc/self/setgroups";
    case Step::UID_MAP:
      return "writing /proc/self/uid_map";
    case Step::GID_MAP:
      return "writing /proc/self/gid_map";
    case Step::LO_SOCKET:
      return "socket() for lo";
    case Step::LO_GET_FLAGS:
      return "ioctl(SIOCGIFFLAGS) on lo";
    case Step::LO_SET_FLAGS:
      return "ioctl(SIOCSIFFLAGS) on lo";
  }
  return "?";
}

bool writeAll(const char* path, const char* text) {
  // Async-signal-safe: used in the forked child.
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t length = strlen(text);
  ssize_t n = write(fd, text, length);
  int saved = errno;
  close(fd);
  errno = saved;
  return n == static_cast<ssize_t>(length);
}

void sendReport(int fd, const Report& report) {
  ssize_t ignored = write(fd, &report, sizeof(report));
  (void)ignored;
}

// The child: make the namespace, report, wait until the parent has opened it.
[[noreturn]] void childMain(int reportFd, int holdFd, const char* uidMap, const char* gidMap) {
  Report report{Step::READY, 0, 0, false};
  auto fail = [&](Step step) {
    report.step = step;
    report.error = errno;
    sendReport(reportFd, report);
    _exit(1);
  };
  if (unshare(CLONE_NEWNET) != 0) {
    report.directErrno = errno;
    report.viaUser = true;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) fail(Step::UNSHARE_USER_NET);
    // A set-uid caller is not dumpable: its /proc/self files (and /proc/<pid>/ns for the
    // parent) stay root-owned until it is again.
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    if (!writeAll("/proc/self/setgroups", "deny")) fail(Step::SETGROUPS);
    if (!writeAll("/proc/self/uid_map", uidMap)) fail(Step::UID_MAP);
    if (!writeAll("/proc/self/gid_map", gidMap)) fail(Step::GID_MAP);
  }
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) fail(Step::LO_SOCKET);
  struct ifreq request;
  memset(&request, 0, sizeof(request));
  strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(s, SIOCGIFFLAGS, &request) != 0) fail(Step::LO_GET_FLAGS);
  request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP | IFF_RUNNING);
  if (ioctl(s, SIOCSIFFLAGS, &request) != 0) fail(Step::LO_SET_FLAGS);
  close(s);
  sendReport(reportFd, report);
  char byte;
  ssize_t ignored = read(holdFd, &byte, 1);  // EOF when the parent is done
  (void)ignored;
  _exit(0);
}

std::string readSysctl(const char* path) {
  std::ifstream in(path);
  std::string value;
  if (!(in >> value)) return "";
  return value;
}

std::string whyUserNamespacesFail() {
  // The usual switches that forbid unprivileged user namespaces, when set that way.
  std::string reasons;
  if (readSysctl("/proc/sys/user/max_user_namespaces") == "0") {
    reasons += "; user.max_user_namespaces is 0";
  }
  if (readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0") {
    reasons += "; kernel.unprivileged_userns_clone is 0";
  }
  if (readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1") {
    reasons += "; kernel.apparmor_restrict_unprivileged_userns is 1";
  }
  return reasons;
}

std::string failureDetail(const Report& report) {
  std::string text = "no private network namespace for network_access \"loopback\": ";
  if (report.step == Step::UNSHARE_USER_NET || report.viaUser) {
    text += std::string("unshare(CLONE_NEWNET) failed: ") + strerror(report.directErrno) +
            " (needs root or CAP_SYS_ADMIN); ";
  }
  text += std::string(stepText(report.step)) + " failed: " + strerror(report.error);
  if (report.step == Step::UNSHARE_USER_NET) text += whyUserNamespacesFail();
  return text;
}

kj::AutoCloseFd openNamespace(pid_t pid, const char* kind, int& error) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%d/ns/%s", static_cast<int>(pid), kind);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) error = errno;
  return kj::AutoCloseFd(fd);
}

}  // namespace

LoopbackNetnsResult createLoopbackNetns() {
  LoopbackNetnsResult result;
  char uidMap[64], gidMap[64];
  snprintf(uidMap, sizeof(uidMap), "%u %u 1\n", geteuid(), geteuid());
  snprintf(gidMap, sizeof(gidMap), "%u %u 1\n", getegid(), getegid());

  int reportPipe[2], holdPipe[2];
  if (pipe2(reportPipe, O_CLOEXEC) != 0) {
    result.detail = std::string("no private network namespace: pipe2 failed: ") + strerror(errno);
    return result;
  }
  if (pipe2(holdPipe, O_CLOEXEC) != 0) {
    int saved = errno;
    close(reportPipe[0]);
    close(reportPipe[1]);
    result.detail = std::string("no private network namespace: pipe2 failed: ") + strerror(saved);
    return result;
  }
  kj::AutoCloseFd reportRead(reportPipe[0]), reportWrite(reportPipe[1]);
  kj::AutoCloseFd holdRead(holdPipe[0]), holdWrite(holdPipe[1]);

  pid_t pid = fork();
  if (pid < 0) {
    result.detail = std::string("no private network namespace: fork failed: ") + strerror(errno);
    return result;
  }
  if (pid == 0) {
    // The child's copy of the hold pipe's write end would keep its own read from ending.
    close(holdWrite.get());
    close(reportRead.get());
    childMain(reportWrite.get(), holdRead.get(), uidMap, gidMap);
  }
  reportWrite = nullptr;
  holdRead = nullptr;

  Report report{Step::READY, 0, 0, false};
  ssize_t n;
  do {
    n = read(reportRead.get(), &report, sizeof(report));
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof(report))) {
    result.detail = "no private network namespace: the namespace child died before reporting";
  } else if (report.step != Step::READY) {
    result.detail = failureDetail(report);
  } else {
    int error = 0;
    LoopbackNetns netns;
    netns.mode = report.viaUser ? LoopbackNetns::Mode::USER_NAMESPACE : LoopbackNetns::Mode::DIRECT;
    netns.net = openNamespace(pid, "net", error);
    if (report.viaUser && netns.net.get() >= 0) netns.user = openNamespace(pid, "user", error);
    if (error != 0) {
      result.detail = std::string("no private network namespace: opening /proc/<pid>/ns failed: ") +
                      strerror(error);
    } else if (report.viaUser) {
      result.detail = std::string("network namespace with only lo, inside a user namespace (") +
                      "unshare(CLONE_NEWNET) failed: " + strerror(report.directErrno) + "; uid " +
                      std::to_string(geteuid()) + " and gid " + std::to_string(getegid()) +
                      " mapped to themselves, other owners appear as nobody)";
      result.netns = kj::mv(netns);
    } else {
      result.detail = "network namespace with only lo (unshare(CLONE_NEWNET))";
      result.netns = kj::mv(netns);
    }
  }
  holdWrite = nullptr;  // lets the child exit
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

int joinLoopbackNetns(int netFd, int userFd) {
  if (userFd >= 0 && setns(userFd, CLONE_NEWUSER) != 0) return errno;
  if (setns(netFd, CLONE_NEWNET) != 0) return errno;
  return 0;
}

void enterLoopbackNetns(int netFd, int userFd) {
  if (userFd >= 0) {
    KJ_SYSCALL(setns(userFd, CLONE_NEWUSER), "join the capture's user namespace");
  }
  KJ_SYSCALL(setns(netFd, CLONE_NEWNET), "join the capture's network namespace");
}

LoopbackNetnsProbe probeLoopbackNetns() {
  LoopbackNetnsResult result = createLoopbackNetns();
  LoopbackNetnsProbe probe{false, LoopbackNetns::Mode::DIRECT, kj::mv(result.detail)};
  KJ_IF_MAYBE (netns, result.netns) {
    probe.available = true;
    probe.mode = netns->mode;
  }
  return probe;
}

}  // namespace rea::helper
