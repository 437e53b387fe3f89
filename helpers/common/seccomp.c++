#include "helpers/common/seccomp.h"

#include <algorithm>
#include <errno.h>
#include <kj/debug.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helpers/common/stack-trace.h"

namespace rea::helper {

namespace {

#ifndef NDEBUG
char debugPrefix[64];  // "rea-<name>: seccomp: syscall " (written once, before the filter)

void writeAll(const char* text, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(STDERR_FILENO, text, size);
    if (n <= 0) return;
    text += n;
    size -= size_t(n);
  }
}

void onSigsys(int, siginfo_t* info, void*) {
  // Async-signal-safe: write(2) and _exit only. The name lookup reads libseccomp's static table.
  char digits[16];
  size_t n = 0;
  unsigned number = unsigned(info->si_syscall);
  do {
    digits[sizeof(digits) - 1 - n++] = char('0' + number % 10);
    number /= 10;
  } while (number > 0 && n < sizeof(digits));
  writeAll(debugPrefix, strlen(debugPrefix));
  writeAll(digits + sizeof(digits) - n, n);
  const char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, info->si_syscall);
  if (name != nullptr) {
    writeAll(" (", 2);
    writeAll(name, strlen(name));
    writeAll(")", 1);
  }
  const char tail[] = " not allowed\n";
  writeAll(tail, sizeof(tail) - 1);
  _exit(128 + SIGSYS);
}

bool debugRequested() {
  const char* value = getenv("REA_SECCOMP_DEBUG");
  return value != nullptr && strcmp(value, "1") == 0;
}
#endif

kj::String padRight(kj::StringPtr text, size_t width) {
  if (text.size() >= width) return kj::str(text, ' ');
  return kj::str(text, kj::repeat(' ', width - text.size()));
}

}  // namespace

SeccompArgRule argEquals(unsigned index, uint64_t value, kj::StringPtr valueName) {
  return {index, ~uint64_t(0), value, kj::str("arg", index, " == ", valueName)};
}

SeccompArgRule argMaskClear(unsigned index, uint64_t mask, kj::StringPtr maskName) {
  return {index, mask, 0, kj::str("arg", index, " & ", maskName, " == 0")};
}

SeccompPolicy::SeccompPolicy(kj::StringPtr helperName) : helperName(kj::str(helperName)) {}

SeccompPolicy& SeccompPolicy::allowExit() {
  for (auto name : {"exit", "exit_group", "rt_sigreturn", "restart_syscall"})
    allow("exit", name);
  return *this;
}

SeccompPolicy& SeccompPolicy::allowMemory() {
  for (auto name : {"brk", "munmap", "mremap", "madvise"})
    allow("memory", name);
  // Never map executable memory: nothing in a helper loads code after start-up.
  allowIf("memory", "mmap", argMaskClear(2, PROT_EXEC, "PROT_EXEC"));
  allowIf("memory", "mprotect", argMaskClear(2, PROT_EXEC, "PROT_EXEC"));
  return *this;
}

SeccompPolicy& SeccompPolicy::allowClock() {
  for (auto name :
       {"clock_gettime", "clock_getres", "gettimeofday", "clock_nanosleep", "nanosleep"}) {
    allow("clock", name);
  }
  return *this;
}

SeccompPolicy& SeccompPolicy::allowThreads() {
  for (auto name : {"futex", "sched_yield", "getpid", "gettid", "rt_sigprocmask", "sigaltstack"}) {
    allow("threads", name);
  }
  return *this;
}

SeccompPolicy& SeccompPolicy::allowEventLoop() {
  for (auto name : {"epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "read", "write",
                    "close", "fcntl"}) {
    allow("event-loop", name);
  }
  return *this;
}

SeccompPolicy& SeccompPolicy::allowRpcSocket() {
  for (auto name : {"read", "readv", "write", "writev", "recvmsg", "sendmsg", "recvfrom", "sendto",
                    "shutdown"}) {
    allow("rpc-socket", name);
  }
  // Cap'n Proto sizes its `-> stream` flow-control window from the socket's send buffer.
  allowIf("rpc-socket", "getsockopt", argEquals(2, SO_SNDBUF, "SO_SNDBUF"));
  return *this;
}

SeccompPolicy& SeccompPolicy::allowSelfSignal() {
  // A helper may signal itself only: the test-only fault injection (fault-injection.h) dies by
  // SIGKILL or SIGABRT this way. Nothing is gained by it that exit_group does not already give.
  return allowIf("self-signal", "kill", argEquals(0, static_cast<uint64_t>(getpid()), "self"));
}

SeccompPolicy& SeccompPolicy::baseline() {
  return allowExit()
      .allowMemory()
      .allowClock()
      .allowThreads()
      .allowEventLoop()
      .allowRpcSocket()
      .allowSelfSignal();
}

SeccompPolicy& SeccompPolicy::allow(kj::StringPtr group, kj::StringPtr syscall) {
  add(group, syscall, 0, nullptr);
  return *this;
}

SeccompPolicy& SeccompPolicy::allowIf(kj::StringPtr group, kj::StringPtr syscall,
                                      SeccompArgRule rule) {
  add(group, syscall, 0, kj::mv(rule));
  return *this;
}

SeccompPolicy& SeccompPolicy::deny(kj::StringPtr group, kj::StringPtr syscall, int error) {
  KJ_REQUIRE(error > 0, "deny needs an errno", syscall);
  add(group, syscall, error, nullptr);
  return *this;
}

void SeccompPolicy::add(kj::StringPtr group, kj::StringPtr syscall, int error,
                        kj::Maybe<SeccompArgRule> arg) {
  int number = seccomp_syscall_resolve_name(syscall.cStr());
  KJ_REQUIRE(number != __NR_SCMP_ERROR, "unknown syscall name", syscall);
  for (auto& rule : rules) {
    if (rule.number != number) continue;
    // The same call from two groups: the first group keeps it. A call is either unconditional
    // or a set of argument alternatives, and always has one action.
    KJ_REQUIRE(rule.error == error, "one syscall, two actions", syscall);
    bool sameArg = rule.arg == nullptr && arg == nullptr;
    KJ_IF_MAYBE (a, rule.arg) {
      KJ_IF_MAYBE (b, arg) {
        sameArg = a->text == b->text;
      }
    }
    if (sameArg) return;
    KJ_REQUIRE((rule.arg == nullptr) == (arg == nullptr),
               "a syscall is either unconditional or argument-checked", syscall);
  }
  rules.add(Rule{kj::str(group), kj::str(syscall), number, error, kj::mv(arg)});
}

kj::String SeccompPolicy::describe() const {
  kj::Vector<kj::String> lines;
  for (auto& rule : rules) {
    kj::String action =
        rule.error == 0 ? kj::str("allow") : kj::str("errno ", strerrorname_np(rule.error));
    kj::StringPtr argText = "-";
    KJ_IF_MAYBE (a, rule.arg) {
      argText = a->text;
    }
    lines.add(kj::str(padRight(rule.syscall, 18), padRight(action, 14), padRight(argText, 28), "(",
                      rule.group, ")"));
  }
  std::sort(lines.begin(), lines.end(), [](const kj::String& a, const kj::String& b) {
    return strcmp(a.cStr(), b.cStr()) < 0;
  });
  kj::Vector<char> out;
  for (auto& line : lines) {
    out.addAll(line);
    out.add('\n');
  }
  out.addAll(kj::str("*default*         kill-process\n"));
  out.add('\0');
  return kj::String(out.releaseAsArray());
}

void SeccompPolicy::load() const {
  // kj takes a stack trace for every exception; under the filter the first one must not load
  // a library (stack-trace.h).
  prepareStackTraces();

  uint32_t defaultAction = SCMP_ACT_KILL_PROCESS;
#ifndef NDEBUG
  if (debugRequested()) {
    defaultAction = SCMP_ACT_TRAP;
    snprintf(debugPrefix, sizeof(debugPrefix), "rea-%s: seccomp: syscall ", helperName.cStr());
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = &onSigsys;
    action.sa_flags = SA_SIGINFO;
    KJ_SYSCALL(sigaction(SIGSYS, &action, nullptr), "SIGSYS handler");
    // Resolve one name now so the handler's lookup touches no lazy state.
    seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, 0);
  }
#endif

  scmp_filter_ctx ctx = seccomp_init(defaultAction);
  KJ_REQUIRE(ctx != nullptr, "seccomp_init failed");
  KJ_DEFER(seccomp_release(ctx));
  auto check = [&](int rc, kj::StringPtr what) {
    if (rc < 0) KJ_FAIL_SYSCALL(what.cStr(), -rc, helperName);
  };
  check(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1), "seccomp NO_NEW_PRIVS");
  check(seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1), "seccomp TSYNC");
#ifdef REA_SANITIZE_BUILD
  // Sanitizer builds only, and not part of describe(): UBSan's vptr check probes memory through
  // a pipe (__sanitizer::IsAccessibleMemoryRange) on every new dynamic type it meets.
  check(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(pipe2), 0), "pipe2 (sanitizer)");
#endif
  for (auto& rule : rules) {
    uint32_t action = rule.error == 0 ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(uint32_t(rule.error));
    KJ_IF_MAYBE (a, rule.arg) {
      struct scmp_arg_cmp cmp = {
          a->index, a->mask == ~uint64_t(0) ? SCMP_CMP_EQ : SCMP_CMP_MASKED_EQ,
          a->mask == ~uint64_t(0) ? a->value : a->mask, a->mask == ~uint64_t(0) ? 0 : a->value};
      check(seccomp_rule_add_array(ctx, action, rule.number, 1, &cmp), rule.syscall);
    } else {
      check(seccomp_rule_add(ctx, action, rule.number, 0), rule.syscall);
    }
  }
  check(seccomp_load(ctx), "seccomp_load");
}

}  // namespace rea::helper
