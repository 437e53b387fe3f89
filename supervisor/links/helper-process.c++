#include "supervisor/links/helper-process.h"

#include "helpers/common/vfork-spawn.h"
#include "helpers/common/exec-channel.h"

#include <errno.h>
#include <fcntl.h>
#include <kj/debug.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace rea::supervisor {

namespace {

const idtype_t ID_PIDFD = idtype_t(3);  // P_PIDFD (linux/wait.h); glibc 2.36 lacks the name
const int RPC_FD = 3;                   // the helper's socketpair end (helpers/common/helper-main)
const int SECCOMP_DEBUG_EXIT = 128 + SIGSYS;  // helpers/common/seccomp.c++ debug trap

void writeAll(int fd, const char* text, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, text, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text += n;
    size -= size_t(n);
  }
}

struct ChildPlan {
  // Built before the clone: the child shares our memory until it execs (CLONE_VM|CLONE_VFORK),
  // so it only reads this and makes raw system calls; it writes nothing of ours but errno.
  std::vector<std::string> argvStore;
  std::vector<std::string> envStore;
  std::vector<char*> argv;
  std::vector<char*> envp;
  std::string execFailure;  // "rea: cannot execute helper <path>: "
  pid_t parent;
  int socket;
  int errWrite;
  int execChannel;  // -1: none
};

// Not instrumented by AddressSanitizer: its stack poisoning would write shadow memory we share.
[[noreturn]] __attribute__((no_sanitize_address)) void runChild(const ChildPlan& plan) {
  int socket = plan.socket;
  int errWrite = plan.errWrite;
  // Move both fds above the target slots first, so no dup2 below overwrites the other.
  int sock = fcntl(socket, F_DUPFD_CLOEXEC, 10);
  int err = fcntl(errWrite, F_DUPFD_CLOEXEC, 10);
  int channel = plan.execChannel >= 0 ? fcntl(plan.execChannel, F_DUPFD_CLOEXEC, 10) : -1;
  int devNull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (sock < 0 || err < 0 || devNull < 0 || (plan.execChannel >= 0 && channel < 0)) _exit(127);
  if (dup2(devNull, STDIN_FILENO) < 0 || dup2(err, STDOUT_FILENO) < 0 ||
      dup2(err, STDERR_FILENO) < 0 || dup2(sock, RPC_FD) < 0) {
    _exit(127);
  }
  if (channel >= 0 && dup2(channel, helper::EXEC_CHANNEL_FD) < 0) _exit(127);
  syscall(SYS_close_range, unsigned(channel >= 0 ? helper::EXEC_CHANNEL_FD + 1 : RPC_FD + 1), ~0u,
          0u);

  // Every signal arrives blocked (helpers/common/vfork-spawn.h).
  helper::resetSignalsInChild();

  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != plan.parent) _exit(127);  // the supervisor died before the line above

  execve(plan.argv[0], plan.argv.data(), plan.envp.data());
  int error = errno;
  writeAll(STDERR_FILENO, plan.execFailure.data(), plan.execFailure.size());
  const char* description = strerrordesc_np(error);
  if (description != nullptr) writeAll(STDERR_FILENO, description, strlen(description));
  writeAll(STDERR_FILENO, "\n", 1);
  _exit(127);
}

__attribute__((no_sanitize_address)) int childEntry(void* plan) {
  runChild(*static_cast<const ChildPlan*>(plan));
}

kj::ForkedPromise<void> makeSignal(kj::Own<kj::PromiseFulfiller<void>>& fulfiller) {
  auto paf = kj::newPromiseAndFulfiller<void>();
  fulfiller = kj::mv(paf.fulfiller);
  return paf.promise.fork();
}

std::string signalText(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return std::to_string(signal) + (abbrev != nullptr ? std::string(" (SIG") + abbrev + ")" : "");
}

}  // namespace

const char* helperEndKindName(HelperEnd::Kind kind) {
  switch (kind) {
    case HelperEnd::Kind::EXITED:
      return "exited";
    case HelperEnd::Kind::STOPPED_BY_US:
      return "stopped_by_us";
    case HelperEnd::Kind::SECCOMP_KILL:
      return "seccomp_kill";
    case HelperEnd::Kind::CRASHED:
      return "crashed";
    case HelperEnd::Kind::DIED_BEFORE_READY:
      return "died_before_ready";
  }
  KJ_UNREACHABLE;
}

std::string HelperEnd::describe() const {
  std::string how =
      signal != 0 ? "signal " + signalText(signal) : "exit status " + std::to_string(code);
  switch (kind) {
    case Kind::EXITED:
      return "exited with status " + std::to_string(code);
    case Kind::STOPPED_BY_US:
      return "was stopped by the supervisor";
    case Kind::SECCOMP_KILL:
      return "was killed by its seccomp filter (SIGSYS)";
    case Kind::CRASHED:
      return "crashed with signal " + signalText(signal);
    case Kind::DIED_BEFORE_READY:
      return "died before it was ready (" + how + "), usually a policy or setup bug";
  }
  KJ_UNREACHABLE;
}

std::string HelperFault::sentence() const {
  if (!end || end->kind == HelperEnd::Kind::STOPPED_BY_US) return reason;
  std::string how = end->describe();
  if (reason.find(how) != std::string::npos) return reason;
  return reason + " (it " + how + ")";
}

std::string defaultHelperDirectory() {
  const char* override = getenv("REA_HELPER_DIR");
  if (override != nullptr && override[0] != '\0') return override;
  char path[PATH_MAX];
  ssize_t n;
  KJ_SYSCALL(n = readlink("/proc/self/exe", path, sizeof(path) - 1), "/proc/self/exe");
  std::string exe(path, size_t(n));
  size_t slash = exe.rfind('/');
  std::string own = slash == std::string::npos ? std::string(".") : exe.substr(0, slash);
  // Installed, rea is <prefix>/bin/rea and its helpers are in <prefix>/libexec/rea
  // (REA_INSTALLED_HELPERS, relative to bin; CMakeLists.txt); in a build tree they are beside it.
  std::string installed = own + "/" + REA_INSTALLED_HELPERS;
  if (access((own + "/rea-pty").c_str(), X_OK) != 0 &&
      access((installed + "/rea-pty").c_str(), X_OK) == 0) {
    return installed;
  }
  return own;
}

kj::Own<HelperProcess> HelperProcess::spawn(kj::AsyncIoContext& io, kj::StringPtr name,
                                            kj::StringPtr path,
                                            kj::ArrayPtr<const kj::StringPtr> args,
                                            int execChannel) {
  KJ_CONTEXT("spawn helper", name, path);
  ChildPlan plan;
  plan.argvStore.push_back(path.cStr());
  for (auto& arg : args)
    plan.argvStore.push_back(arg.cStr());
  // An explicit minimal environment: helpers need nothing from ours but the debug switch and
  // the tests' fault injection (helpers/common/fault-injection.h).
  for (const char* name : {"REA_SECCOMP_DEBUG", "REA_TEST_FAULT", "REA_TEST_FAULT_DELAY_MS"}) {
    const char* value = getenv(name);
    if (value != nullptr) plan.envStore.push_back(std::string(name) + "=" + value);
  }
  for (auto& s : plan.argvStore)
    plan.argv.push_back(const_cast<char*>(s.c_str()));
  plan.argv.push_back(nullptr);
  for (auto& s : plan.envStore)
    plan.envp.push_back(const_cast<char*>(s.c_str()));
  plan.envp.push_back(nullptr);
  plan.execFailure = std::string("rea: cannot execute helper ") + path.cStr() + ": ";
  plan.parent = getpid();

  int pair[2];
  KJ_SYSCALL(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), name);
  kj::AutoCloseFd ours(pair[0]), theirs(pair[1]);
  int pipeFds[2];
  KJ_SYSCALL(pipe2(pipeFds, O_CLOEXEC), name);
  kj::AutoCloseFd errRead(pipeFds[0]), errWrite(pipeFds[1]);

  plan.socket = theirs.get();
  plan.errWrite = errWrite.get();
  plan.execChannel = execChannel;
  pid_t pid;
  // vfork semantics (helpers/common/vfork-spawn.h): rea holds the Evidence tree and, under
  // the sanitizers, their shadow memory; a fork cost ~3 ms per helper on the capture's
  // critical path.
  KJ_SYSCALL(pid = helper::cloneVfork(-1, childEntry, &plan), name);
  theirs = nullptr;
  errWrite = nullptr;

  // Safe at once: an unreaped child's pid cannot be reused.
  int pidfd = int(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    int error = errno;
    ::kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    KJ_FAIL_SYSCALL("pidfd_open", error, name, pid);
  }
  auto connection = io.lowLevelProvider->wrapSocketFd(ours.release(),
                                                      kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
  return kj::heap<HelperProcess>(io, name, pid, kj::AutoCloseFd(pidfd), kj::mv(connection),
                                 kj::mv(errRead));
}

HelperProcess::HelperProcess(kj::AsyncIoContext& io, kj::StringPtr name, pid_t pid,
                             kj::AutoCloseFd pidfdIn, kj::Own<kj::AsyncIoStream> connectionIn,
                             kj::AutoCloseFd stderrPipe)
    : io(io),
      name_(kj::str(name)),
      pid_(pid),
      pidfd(kj::mv(pidfdIn)),
      connection(kj::mv(connectionIn)),
      reaped(makeSignal(reapedFulfiller)),
      stderrCopy(nullptr),
      exitWatcher(nullptr) {
  pidfdObserver =
      kj::heap<kj::UnixEventPort::FdObserver>(io.unixEventPort, KJ_ASSERT_NONNULL(pidfd).get(),
                                              kj::UnixEventPort::FdObserver::OBSERVE_READ);
  exitWatcher = watchExit().eagerlyEvaluate(
      [this](kj::Exception&& e) { KJ_LOG(ERROR, "watching helper failed", name_, e); });
  auto input = io.lowLevelProvider->wrapInputFd(stderrPipe.release(),
                                                kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
  stderrCopy =
      copyStderr(kj::mv(input), kj::heap<kj::Vector<char>>()).eagerlyEvaluate([](kj::Exception&&) {
      });
}

HelperProcess::~HelperProcess() noexcept(false) {
  stderrCopy = nullptr;
  exitWatcher = nullptr;
  pidfdObserver = nullptr;  // before the pidfd closes (MACHINE-NOTES §2c.3)
  KJ_IF_MAYBE (fd, pidfd) {
    // Still unreaped: it must not outlive us.
    syscall(SYS_pidfd_send_signal, fd->get(), SIGKILL, nullptr, 0);
    siginfo_t info;
    memset(&info, 0, sizeof(info));
    while (waitid(ID_PIDFD, id_t(fd->get()), &info, WEXITED) < 0 && errno == EINTR) {
    }
  }
}

kj::Own<kj::AsyncIoStream> HelperProcess::takeConnection() {
  KJ_IF_MAYBE (c, connection) {
    auto result = kj::mv(*c);
    connection = nullptr;
    return result;
  }
  KJ_FAIL_REQUIRE("helper connection already taken", name_);
}

void HelperProcess::retire(kj::Own<kj::AsyncIoStream> stream) {
  // A socket the helper already closed refuses the shutdown: nothing is lost by dropping it.
  if (kj::runCatchingExceptions([&]() { stream->shutdownWrite(); }) != nullptr) return;
  if (end_ == nullptr) retired = kj::mv(stream);
}

void hangUp(kj::Maybe<kj::Own<HelperProcess>>& process,
            kj::Maybe<kj::Own<kj::AsyncIoStream>>& connection) {
  KJ_IF_MAYBE (c, connection) {
    KJ_IF_MAYBE (p, process) {
      (*p)->retire(kj::mv(*c));
    }
  }
  connection = nullptr;
}

void HelperProcess::markReady() {
  ready = true;
}

kj::Promise<HelperEnd> HelperProcess::whenEnded() {
  return reaped.addBranch().then([this]() { return KJ_ASSERT_NONNULL(end_); });
}

kj::Maybe<const HelperEnd&> HelperProcess::end() const {
  KJ_IF_MAYBE (e, end_) {
    return *e;
  }
  return nullptr;
}

void HelperProcess::kill() {
  stopping = true;
  KJ_IF_MAYBE (fd, pidfd) {
    killedByUs = true;
    if (syscall(SYS_pidfd_send_signal, fd->get(), SIGKILL, nullptr, 0) < 0 && errno != ESRCH) {
      KJ_FAIL_SYSCALL("pidfd_send_signal", errno, name_, pid_);
    }
  }
}

kj::Promise<HelperEnd> HelperProcess::stop(kj::Duration grace) {
  stopping = true;
  return whenEnded().exclusiveJoin(io.provider->getTimer().afterDelay(grace).then([this]() {
    kill();
    return whenEnded();
  }));
}

kj::Promise<HelperEnd> HelperProcess::stopLost(kj::Duration grace) {
  if (end() != nullptr || killedByUs) return stop(grace);
  return whenEnded().exclusiveJoin(
      io.provider->getTimer().afterDelay(grace).then([this, grace]() { return stop(grace); }));
}

kj::Promise<void> HelperProcess::watchExit() {
  int fd = KJ_ASSERT_NONNULL(pidfd).get();
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  KJ_SYSCALL(waitid(ID_PIDFD, id_t(fd), &info, WEXITED | WNOHANG), name_, pid_);
  if (info.si_pid == 0) {
    return KJ_ASSERT_NONNULL(pidfdObserver)->whenBecomesReadable().then([this]() {
      return watchExit();
    });
  }
  end_ = classify(info);
  // Reaped: empty the pidfd so nothing can signal a recycled pid. The observer goes first; we
  // are running in a continuation of its promise, which has already resolved.
  pidfdObserver = nullptr;
  pidfd = nullptr;
  retired = nullptr;
  reapedFulfiller->fulfill();
  return kj::READY_NOW;
}

HelperEnd HelperProcess::classify(const siginfo_t& info) const {
  HelperEnd end{HelperEnd::Kind::EXITED};
  if (info.si_code == CLD_EXITED) {
    end.code = info.si_status;
    if (end.code == SECCOMP_DEBUG_EXIT) {
      end.kind = HelperEnd::Kind::SECCOMP_KILL;
    } else if (!ready) {
      end.kind = HelperEnd::Kind::DIED_BEFORE_READY;
    } else if (stopping && end.code == 0) {
      end.kind = HelperEnd::Kind::STOPPED_BY_US;
    }
  } else {
    end.signal = info.si_status;
    if (end.signal == SIGSYS) {
      end.kind = HelperEnd::Kind::SECCOMP_KILL;
    } else if (killedByUs && end.signal == SIGKILL) {
      end.kind = HelperEnd::Kind::STOPPED_BY_US;
    } else if (!ready) {
      end.kind = HelperEnd::Kind::DIED_BEFORE_READY;
    } else {
      end.kind = HelperEnd::Kind::CRASHED;
    }
  }
  return end;
}

kj::Promise<void> HelperProcess::copyStderr(kj::Own<kj::AsyncInputStream> in,
                                            kj::Own<kj::Vector<char>> line) {
  // Each line of the helper's stderr goes to ours as "rea-<name>: <line>".
  auto buffer = kj::heapArray<char>(4096);
  auto promise = in->tryRead(buffer.begin(), 1, buffer.size());
  return promise.then([this, in = kj::mv(in), line = kj::mv(line),
                       buffer = kj::mv(buffer)](size_t n) mutable -> kj::Promise<void> {
    auto flush = [&]() {
      auto prefix = kj::str("rea-", name_, ": ");
      writeAll(STDERR_FILENO, prefix.begin(), prefix.size());
      line->add('\n');
      writeAll(STDERR_FILENO, line->begin(), line->size());
      line->clear();
    };
    for (size_t i = 0; i < n; ++i) {
      if (buffer[i] == '\n') {
        flush();
      } else {
        line->add(buffer[i]);
        if (line->size() >= 4096) flush();  // a helper that never ends its line
      }
    }
    if (n == 0) {
      if (!line->empty()) flush();
      return kj::READY_NOW;
    }
    return copyStderr(kj::mv(in), kj::mv(line));
  });
}

}  // namespace rea::supervisor
