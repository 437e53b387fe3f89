#include "helpers/common/vfork-spawn.h"

#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <memory>

namespace rea::helper {
namespace {

// The child's stack: it runs a few system calls and execve, nothing deep.
const size_t CHILD_STACK_SIZE = 64 * 1024;

#if defined(__x86_64__)
// clone3 with a stack of the child's own returns into the child on that stack, where the C
// wrapper's stack frame does not exist: the child has to leave the system call straight into
// `entry`. r12 and r13 survive the system call in both processes (only rax, rcx and r11 do
// not); the kernel points the child's rsp at the top of its stack (16-byte aligned), and the
// call leaves it as a function entry expects. If `entry` returns, the child exits with its value.
__attribute__((no_sanitize_address)) long clone3Into(struct clone_args* args, int (*entry)(void*),
                                                     void* argument) {
  long result;
  register int (*entryRegister)(void*) asm("r12") = entry;
  register void* argumentRegister asm("r13") = argument;
  asm volatile(
      "syscall\n\t"
      "testq %%rax, %%rax\n\t"
      "jnz 1f\n\t"
      "xorl %%ebp, %%ebp\n\t"
      "movq %%r13, %%rdi\n\t"
      "callq *%%r12\n\t"
      "movl %%eax, %%edi\n\t"
      "movl %[exitCall], %%eax\n\t"
      "syscall\n\t"
      "hlt\n\t"
      "1:\n\t"
      : "=a"(result)
      : "0"(long(SYS_clone3)), "D"(args), "S"(sizeof(*args)), "r"(entryRegister),
        "r"(argumentRegister), [exitCall] "i"(SYS_exit_group)
      : "rcx", "r11", "memory");
  return result;
}
#endif

}  // namespace

pid_t cloneVfork(int cgroupFd, int (*entry)(void*), void* argument) {
  std::unique_ptr<char[]> stack(new char[CHILD_STACK_SIZE]);
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  long pid;
  if (cgroupFd < 0) {
    // glibc's clone(): plain clone(2), which container seccomp profiles allow where they refuse
    // clone3 with ENOSYS.
    pid = clone(entry, stack.get() + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | SIGCHLD, argument);
  } else {
#if defined(__x86_64__)
    struct clone_args args;
    memset(&args, 0, sizeof(args));
    args.flags = CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.stack = reinterpret_cast<uint64_t>(stack.get());
    args.stack_size = CHILD_STACK_SIZE;
    args.cgroup = uint64_t(cgroupFd);
    pid = clone3Into(&args, entry, argument);
    if (pid < 0) {
      errno = int(-pid);
      pid = -1;
    }
#else
    // No way into clone3 with a stack of the child's own here: a plain fork into the group.
    struct clone_args args;
    memset(&args, 0, sizeof(args));
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = uint64_t(cgroupFd);
    pid = syscall(SYS_clone3, &args, sizeof(args));
    if (pid == 0) _exit(entry(argument));
#endif
  }
  int error = errno;
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  errno = error;
  return pid_t(pid);
}

__attribute__((no_sanitize_address)) void resetSignalsInChild() {
  // The kernel's struct sigaction (not glibc's): handler, flags, restorer, 64-bit mask.
  struct {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    uint64_t mask;
  } defaultAction = {SIG_DFL, 0, nullptr, 0};
  for (int signal = 1; signal < NSIG; ++signal) {
    syscall(SYS_rt_sigaction, signal, &defaultAction, nullptr, sizeof(uint64_t));
  }
  uint64_t none = 0;
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, nullptr, sizeof(uint64_t));
}

}  // namespace rea::helper
