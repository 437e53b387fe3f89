#pragma once
// SeccompPolicy: a small builder over libseccomp for the syscall filter every helper installs
// on itself (ARCHITECTURE "Libraries"; STYLE §7). A policy is a list of named groups, each a
// short function whose comment lists its syscalls and why; a helper's seccomp-policy.c++ composes
// the baseline with its own delta. Anything not listed kills the whole process (KILL_PROCESS),
// which the supervisor reports as `seccompKill` (A13).
//
// Debug builds (no NDEBUG) honour REA_SECCOMP_DEBUG=1: the default action becomes TRAP and a
// SIGSYS handler writes "rea-<name>: seccomp: syscall <number> (<name>) not allowed" to stderr
// with write(2) and exits with status 159 (128 + SIGSYS). Release builds always kill.
// Sanitizer builds (REA_SANITIZE) also allow what the sanitizer runtimes need (pipe2), outside
// describe(): the golden listings stay those of the real policy.
//
// Errors: adding a syscall name libseccomp does not know throws FAILED; load() throws FAILED
// with the libseccomp error when the filter cannot be installed.

#include <cstdint>
#include <kj/string.h>
#include <kj/vector.h>

namespace rea::helper {

struct SeccompArgRule {
  // One comparison of one syscall argument: (arg[index] & mask) == value.
  unsigned index;
  uint64_t mask;
  uint64_t value;
  kj::String text;  // how describe() prints it, e.g. "arg1 == TIOCSWINSZ"
};

SeccompArgRule argEquals(unsigned index, uint64_t value, kj::StringPtr valueName);
// arg[index] == value; printed as "arg<index> == <valueName>".
SeccompArgRule argMaskClear(unsigned index, uint64_t mask, kj::StringPtr maskName);
// (arg[index] & mask) == 0; printed as "arg<index> & <maskName> == 0".

class SeccompPolicy {
 public:
  explicit SeccompPolicy(kj::StringPtr helperName);
  // `helperName` ("pty") names the helper in debug-mode reports.

  // ---- named groups (the baseline) ----

  SeccompPolicy& allowExit();
  // exit, exit_group: leave; rt_sigreturn, restart_syscall: the kernel's own signal plumbing.
  SeccompPolicy& allowMemory();
  // brk, mmap/mprotect without PROT_EXEC, munmap, mremap, madvise: malloc and thread stacks.
  SeccompPolicy& allowClock();
  // clock_gettime, clock_getres, gettimeofday (vDSO fallbacks), clock_nanosleep, nanosleep.
  SeccompPolicy& allowThreads();
  // futex, sched_yield, getpid, gettid, rt_sigprocmask, sigaltstack: mutexes, condition
  // variables and kj's cross-thread wake-ups; getpid for log lines.
  SeccompPolicy& allowEventLoop();
  // epoll_wait, epoll_pwait, epoll_pwait2, epoll_ctl: kj's UnixEventPort; read, write: its
  // eventfd; close: dropping fds; fcntl: kj sets O_NONBLOCK/FD_CLOEXEC on wrapped fds.
  SeccompPolicy& allowRpcSocket();
  // read, readv, write, writev, recvmsg, sendmsg, recvfrom, sendto, shutdown: the Cap'n Proto
  // connection on fd 3 (kj's AsyncStreamFd), and stderr for log lines; getsockopt(SO_SNDBUF)
  // only: the RPC system's stream flow-control window.
  SeccompPolicy& allowSelfSignal();
  // kill with arg0 == this process's pid: the fault injection of tests (fault-injection.h).

  SeccompPolicy& baseline();
  // All of the above: what every helper's RPC server needs to stay alive.

  // ---- the job's delta ----

  SeccompPolicy& allow(kj::StringPtr group, kj::StringPtr syscall);
  SeccompPolicy& allowIf(kj::StringPtr group, kj::StringPtr syscall, SeccompArgRule rule);
  // Several allowIf rules for one syscall are alternatives (any one allows).
  SeccompPolicy& deny(kj::StringPtr group, kj::StringPtr syscall, int error);
  // The call fails with `error` instead of killing: only for calls libc tries and recovers
  // from; the comment at the call site says which.

  kj::String describe() const;
  // The policy as sorted lines "syscall  action  [argument rule]  (group)", one per rule,
  // ending with the default action: the golden file format of tests/data/seccomp/<name>.txt.

  void load() const;
  // Installs the filter on the calling thread and, with TSYNC, on every other thread of the
  // process; sets NO_NEW_PRIVS first. Irreversible: call it once, after everything the filter
  // forbids (opening files, spawning the target) is done.

 private:
  struct Rule {
    kj::String group;
    kj::String syscall;
    int number;
    int error;  // 0 = allow
    kj::Maybe<SeccompArgRule> arg;
  };
  kj::String helperName;
  kj::Vector<Rule> rules;

  void add(kj::StringPtr group, kj::StringPtr syscall, int error, kj::Maybe<SeccompArgRule> arg);
};

}  // namespace rea::helper
