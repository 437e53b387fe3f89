#include "helpers/pty/target.h"

#include <errno.h>
#include <fcntl.h>
#include <kj/debug.h>
#include <linux/capability.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/common/clock.h"
#include "helpers/common/vfork-spawn.h"
#include "helpers/pty/exec-filter.h"

namespace rea::helper {

namespace {

struct ChildPlan {
  // Everything the child needs, built before the clone: the child shares our memory until it
  // execs (helpers/common/vfork-spawn.h), so it only reads this and makes system calls.
  std::vector<std::string> candidates;  // paths to try, in PATH order
  std::vector<char*> argv;
  std::vector<char*> envp;
  const char* workingDirectory;
  const char* executableObject;  // nullptr: exec `candidates` by path, else this object
  pid_t parent;
  const char* netnsPath;   // nullptr: stay in the helper's network namespace
  const char* usernsPath;  // nullptr: no user namespace to join first
  int slave;               // the PTY's slave side
  int execChannel;         // -1, or the exec channel: install the exec filter (exec-filter.h)
  ExecFilter execFilter;
  const char* pidsTasks;  // nullptr, or the `tasks` file of a v1 pids group to join (pids-bound.h)
};

__attribute__((no_sanitize_address)) int joinNamespaces(const ChildPlan& plan) {
  // A9: open both before joining either (after the user namespace switch our view of /proc may
  // differ), then user namespace first (it owns the network namespace). Returns 0 or errno.
  int user = plan.usernsPath != nullptr ? open(plan.usernsPath, O_RDONLY | O_CLOEXEC) : -1;
  if (plan.usernsPath != nullptr && user < 0) return errno;
  int net = open(plan.netnsPath, O_RDONLY | O_CLOEXEC);
  if (net < 0) return errno;
  if (user >= 0 && setns(user, CLONE_NEWUSER) != 0) return errno;
  if (setns(net, CLONE_NEWNET) != 0) return errno;
  close(net);
  if (user >= 0) close(user);
  return 0;
}

// Issue 18: a root target in the loopback namespace keeps every capability unless we take them,
// and CAP_SYS_ADMIN alone lets it setns() back into the host's network namespace (through
// /proc/<helper>/ns/net or /proc/1/ns/net). These are the capabilities that reach another
// namespace or another process: joining or making namespaces and mounting (SYS_ADMIN), entering
// other processes (SYS_PTRACE), moving interfaces between namespaces (NET_ADMIN), and loading
// kernel code or raw memory (SYS_MODULE, BPF, SYS_RAWIO). A root target keeps the rest (file
// ownership and permissions, kill, chown, binding low ports, ...), documented in docs.
constexpr int NAMESPACE_CAPABILITIES[] = {CAP_SYS_ADMIN,  CAP_SYS_PTRACE, CAP_NET_ADMIN,
                                          CAP_SYS_MODULE, CAP_BPF,        CAP_SYS_RAWIO};

__attribute__((no_sanitize_address)) int dropNamespaceCapabilities() {
  // From the bounding set (no exec, set-uid or file capability can give them back) and from the
  // inheritable and ambient sets (which could, through a file's inheritable capabilities).
  // Returns 0 or errno; EINVAL means the kernel does not know that capability.
  for (int capability : NAMESPACE_CAPABILITIES) {
    if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno != EINVAL) return errno;
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    return errno;
  }
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
  if (syscall(SYS_capget, &header, data) != 0) return errno;
  for (int capability : NAMESPACE_CAPABILITIES) {
    data[CAP_TO_INDEX(capability)].inheritable &= ~CAP_TO_MASK(capability);
  }
  if (syscall(SYS_capset, &header, data) != 0) return errno;
  for (int capability : NAMESPACE_CAPABILITIES) {
    if (prctl(PR_CAPBSET_READ, capability, 0, 0, 0) == 1) return EPERM;  // never claim it
  }
  return 0;
}

__attribute__((no_sanitize_address)) void writeString(int fd, const char* text) {
  size_t size = strlen(text);
  while (size > 0) {
    ssize_t n = ::write(fd, text, size);
    if (n <= 0) return;
    text += n;
    size -= size_t(n);
  }
}

[[noreturn]] __attribute__((no_sanitize_address)) void failChild(const char* what, int error) {
  // Mirrors the baseline's perror() line; the PTY turns "\n" into "\r\n" (ONLCR).
  writeString(STDERR_FILENO, what);
  writeString(STDERR_FILENO, ": ");
  const char* description = strerrordesc_np(error);
  writeString(STDERR_FILENO, description != nullptr ? description : "Unknown error");
  writeString(STDERR_FILENO, "\n");
  _exit(1);
}

// Issue 18.2: the object the supervisor checked, never whatever its path names now.
[[noreturn]] __attribute__((no_sanitize_address)) void execChecked(const ChildPlan& plan, int fd) {
  syscall(SYS_execveat, fd, "", plan.argv.data(), plan.envp.data(), AT_EMPTY_PATH);
  int error = errno;
  if (error == ENOENT) {
    // A #! script: the kernel would hand its interpreter /dev/fd/<n> of a descriptor that
    // closes at exec, so it refuses (ENOENT, as for a missing interpreter). A script is opened
    // again by name by its interpreter anyway; exec it by the name of the checked object (not by
    // the scenario's path, which may lead elsewhere by now), so the interpreter gets that name.
    char name[4096];
    char link[32] = "/proc/self/fd/";
    char digits[12];
    int count = 0;
    for (int value = fd; count == 0 || value > 0; value /= 10)
      digits[count++] = char('0' + value % 10);
    size_t at = strlen(link);
    while (count > 0)
      link[at++] = digits[--count];
    link[at] = '\0';
    ssize_t n = readlink(link, name, sizeof(name) - 1);
    if (n > 0 && name[0] == '/') {
      name[n] = '\0';
      execve(name, plan.argv.data(), plan.envp.data());
      error = errno;
    }
  }
  failChild("execvp(3) failed.", error);
}

// Not instrumented by AddressSanitizer: its stack poisoning would write shadow memory we share.
[[noreturn]] __attribute__((no_sanitize_address)) void runChild(const ChildPlan& plan) {
  int slave = plan.slave;
  // Every signal arrives blocked. Ignored signals survive exec: the target gets default
  // dispositions, as from a shell.
  resetSignalsInChild();

  if (setsid() < 0) _exit(1);
  if (ioctl(slave, TIOCSCTTY, 0) < 0) _exit(1);
  if (dup2(slave, STDIN_FILENO) < 0 || dup2(slave, STDOUT_FILENO) < 0 ||
      dup2(slave, STDERR_FILENO) < 0) {
    _exit(1);
  }
  // The exec channel (if any) is kept as fd 3 until the filter is installed, right before exec.
  if (plan.execChannel >= 0 && dup2(plan.execChannel, 3) < 0) _exit(1);
  syscall(SYS_close_range, plan.execChannel >= 0 ? 4u : 3u, ~0u, 0u);

  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != plan.parent) _exit(1);  // the helper died before the line above

  // Issue 18.7: the capture's bound on live processes (a cgroup v1 pids group), joined before
  // anything could fork, so it holds for every descendant. Through `tasks`, not cgroup.procs:
  // this child has one thread, so moving the thread moves the process, and the kernel moves
  // the caller's own thread without write-locking the global threadgroup rwsem. Through
  // cgroup.procs that lock waits out an RCU grace period (9-15 ms measured here right after
  // another process exited; issue 20), on the start's critical path.
  if (plan.pidsTasks != nullptr) {
    int tasks = open(plan.pidsTasks, O_WRONLY | O_CLOEXEC);
    if (tasks < 0 || write(tasks, "0", 1) != 1) failChild("joining the pids cgroup failed.", errno);
    close(tasks);
  }

  // Issue 18.2: the working directory and the executable are the objects the supervisor
  // checked (through its /proc/<pid>/fd/<n>), reached before any namespace switch (from a user
  // namespace of our own, the supervisor's descriptors are out of reach).
  if (chdir(plan.workingDirectory) < 0) failChild("chdir(2) failed.", errno);
  int executable = -1;
  if (plan.executableObject != nullptr) {
    executable = open(plan.executableObject, O_PATH | O_CLOEXEC);
    if (executable < 0) failChild("execvp(3) failed.", errno);
  }

  if (plan.netnsPath != nullptr) {
    int error = joinNamespaces(plan);
    if (error != 0) failChild("setns(2) failed.", error);  // never run with host networking
    // ... nor with a way back to it.
    error = dropNamespaceCapabilities();
    if (error != 0) failChild("prctl(PR_CAPBSET_DROP) failed.", error);
  }
  // Last, so that only the target's own execs are observed (and the setup above is not slowed).
  if (plan.execChannel >= 0) installExecFilterInChild(plan.execFilter, 3);
  if (executable >= 0) execChecked(plan, executable);

  // execvp's rules: try each PATH entry; report EACCES if any entry had it, else the last error.
  int error = ENOENT;
  bool sawAccess = false;
  for (auto& path : plan.candidates) {
    execve(path.c_str(), plan.argv.data(), plan.envp.data());
    if (errno == EACCES) sawAccess = true;
    error = errno;
    if (errno != ENOENT && errno != ENOTDIR && errno != EACCES) break;
  }
  failChild("execvp(3) failed.", sawAccess && error != ENOEXEC ? EACCES : error);
}

std::vector<std::string> executableCandidates(const TargetSpec& spec) {
  if (spec.executable.find('/') != std::string::npos) return {spec.executable};
  std::string path = "/bin:/usr/bin";  // execvp's default when PATH is unset
  for (auto& entry : spec.environment) {
    if (entry.compare(0, 5, "PATH=") == 0) path = entry.substr(5);
  }
  std::vector<std::string> result;
  size_t begin = 0;
  for (;;) {
    size_t end = path.find(':', begin);
    std::string dir = path.substr(begin, end == std::string::npos ? end : end - begin);
    result.push_back((dir.empty() ? std::string(".") : dir) + "/" + spec.executable);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return result;
}

__attribute__((no_sanitize_address)) int childEntry(void* plan) {
  runChild(*static_cast<const ChildPlan*>(plan));
}

void setCloexec(int fd) {
  int flags;
  KJ_SYSCALL(flags = fcntl(fd, F_GETFD));
  KJ_SYSCALL(fcntl(fd, F_SETFD, flags | FD_CLOEXEC));
}

}  // namespace

struct termios targetTermios() {
  struct termios t;
  memset(&t, 0, sizeof(t));
  t.c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT | IUTF8;
  t.c_oflag = OPOST | ONLCR;
  t.c_cflag = CREAD | CS8 | HUPCL;
  t.c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  // node-pty's control characters (VEOL/VEOL2 = -1 as an unsigned cc_t).
  t.c_cc[VEOF] = 4;
  t.c_cc[VEOL] = cc_t(-1);
  t.c_cc[VEOL2] = cc_t(-1);
  t.c_cc[VERASE] = 0x7f;
  t.c_cc[VWERASE] = 23;
  t.c_cc[VKILL] = 21;
  t.c_cc[VREPRINT] = 18;
  t.c_cc[VINTR] = 3;
  t.c_cc[VQUIT] = 0x1c;
  t.c_cc[VSUSP] = 26;
  t.c_cc[VSTART] = 17;
  t.c_cc[VSTOP] = 19;
  t.c_cc[VLNEXT] = 22;
  t.c_cc[VDISCARD] = 15;
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  cfsetispeed(&t, B38400);
  cfsetospeed(&t, B38400);
  return t;
}

Target spawnTarget(const TargetSpec& spec) {
  KJ_CONTEXT("spawn target", spec.executable);
  KJ_REQUIRE(!spec.executable.empty(), "empty executable");

  ChildPlan plan;
  plan.candidates = executableCandidates(spec);
  plan.argv.push_back(const_cast<char*>(spec.executable.c_str()));
  for (auto& argument : spec.arguments)
    plan.argv.push_back(const_cast<char*>(argument.c_str()));
  plan.argv.push_back(nullptr);
  for (auto& entry : spec.environment)
    plan.envp.push_back(const_cast<char*>(entry.c_str()));
  plan.envp.push_back(nullptr);
  plan.workingDirectory = spec.workingDirectory.c_str();
  plan.executableObject = spec.executableObject.empty() ? nullptr : spec.executableObject.c_str();
  plan.parent = getpid();
  plan.netnsPath = spec.netnsPath.empty() ? nullptr : spec.netnsPath.c_str();
  plan.usernsPath = spec.usernsPath.empty() ? nullptr : spec.usernsPath.c_str();
  plan.execChannel = spec.execChannel;
  buildExecFilter(plan.execFilter);
  std::string pidsTasks = spec.pidsGroupPath.empty() ? "" : spec.pidsGroupPath + "/tasks";
  plan.pidsTasks = pidsTasks.empty() ? nullptr : pidsTasks.c_str();

  struct termios termios = targetTermios();
  struct winsize size;
  memset(&size, 0, sizeof(size));
  size.ws_col = spec.columns;
  size.ws_row = spec.rows;
  int masterFd, slaveFd;
  KJ_SYSCALL(openpty(&masterFd, &slaveFd, nullptr, &termios, &size), "openpty");
  kj::AutoCloseFd master(masterFd), slave(slaveFd);
  setCloexec(master.get());
  setCloexec(slave.get());

  // A8: with a capture cgroup the target is born inside it (atomically: no instant in which
  // it or a child could run outside), so every descendant is a member from its first moment.
  kj::AutoCloseFd cgroup;
  if (!spec.cgroupPath.empty()) {
    int fd;
    KJ_SYSCALL(fd = open(spec.cgroupPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC),
               "open capture cgroup", spec.cgroupPath);
    cgroup = kj::AutoCloseFd(fd);
  }
  plan.slave = slave.get();
  // vfork semantics (helpers/common/vfork-spawn.h): we resume once the target has exec'd.
  uint64_t spawnedAtNs = monotonicNowNs();
  pid_t pid;
  if (cgroup != nullptr) {
    KJ_SYSCALL(pid = cloneVfork(cgroup.get(), childEntry, &plan), "clone3 into capture cgroup",
               spec.cgroupPath);
  } else {
    KJ_SYSCALL(pid = cloneVfork(-1, childEntry, &plan), "start target");
  }
  slave = nullptr;  // the master sees EIO once the target's copies close too

  int pidfd = int(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    int error = errno;
    ::kill(pid, SIGKILL);  // unreaped, so the pid cannot have been reused
    waitpid(pid, nullptr, 0);
    KJ_FAIL_SYSCALL("pidfd_open", error, pid);
  }
  return Target{pid, kj::AutoCloseFd(pidfd), kj::mv(master), spawnedAtNs};
}

}  // namespace rea::helper
