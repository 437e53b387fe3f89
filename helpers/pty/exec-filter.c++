#include "helpers/pty/exec-filter.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers/common/exec-channel.h"

namespace rea::helper {

namespace {

#if defined(__x86_64__)
constexpr uint32_t NATIVE_ARCH = AUDIT_ARCH_X86_64;
#define REA_EXEC_FILTER 1
#elif defined(__aarch64__)
constexpr uint32_t NATIVE_ARCH = AUDIT_ARCH_AARCH64;
#define REA_EXEC_FILTER 1
#endif

}  // namespace

bool execFilterSupported() {
#ifdef REA_EXEC_FILTER
  return true;
#else
  return false;
#endif
}

void buildExecFilter(ExecFilter& filter) {
  memset(&filter, 0, sizeof(filter));
#ifdef REA_EXEC_FILTER
  size_t n = 0;
  auto put = [&](struct sock_filter instruction) { filter.code[n++] = instruction; };
  put(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
  put(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
  put(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  put(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
  put(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 2, 0));
  put(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 1, 0));
  put(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  put(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  filter.program.len = static_cast<unsigned short>(n);
  filter.program.filter = filter.code;
#endif
}

namespace {

__attribute__((no_sanitize_address)) void sendOnChannel(int channel, const char* bytes, size_t size,
                                                        int fd) {
  struct iovec iov;
  iov.iov_base = const_cast<char*>(bytes);
  iov.iov_len = size;
  union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof(control));
  struct msghdr message;
  memset(&message, 0, sizeof(message));
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  if (fd >= 0) {
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof(control.buffer);
    struct cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof(int));
  }
  syscall(SYS_sendmsg, channel, &message, MSG_NOSIGNAL);
}

}  // namespace

__attribute__((no_sanitize_address)) void installExecFilterInChild(const ExecFilter& filter,
                                                                   int channel) {
  if (filter.program.len == 0) {
    char failed[1 + sizeof(int)] = {EXEC_CHANNEL_FAILED};
    int error = ENOSYS;
    memcpy(failed + 1, &error, sizeof(int));
    sendOnChannel(channel, failed, sizeof(failed), -1);
    syscall(SYS_close, channel);
    return;
  }
  // Once the sampler has received an exec's notification, only a fatal signal may end the
  // wait (Linux 5.19): otherwise any signal, or the freezer a checkpoint uses, interrupts it and
  // the kernel restarts the exec, which the sampler then hears about twice. Older kernels
  // refuse the flag (EINVAL) and get the plain listener.
  unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
  long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &filter.program);
  if (listener < 0 && errno == EINVAL) {
    flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
    listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &filter.program);
  }
  if (listener < 0 && errno == EACCES) {
    // No CAP_SYS_ADMIN: the kernel wants no_new_privs first (exec-filter.h says what it costs).
    syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &filter.program);
    if (listener < 0 && errno == EINVAL && flags != SECCOMP_FILTER_FLAG_NEW_LISTENER) {
      flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
      listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &filter.program);
    }
  }
  if (listener < 0) {
    char failed[1 + sizeof(int)] = {EXEC_CHANNEL_FAILED};
    int error = errno;
    memcpy(failed + 1, &error, sizeof(int));
    sendOnChannel(channel, failed, sizeof(failed), -1);
  } else {
    char listening = EXEC_CHANNEL_LISTENER;
    sendOnChannel(channel, &listening, 1, int(listener));
    syscall(SYS_close, int(listener));  // the sampler holds the only copy from here on
  }
  syscall(SYS_close, channel);
}

}  // namespace rea::helper
