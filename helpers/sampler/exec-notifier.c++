#include "helpers/sampler/exec-notifier.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <kj/debug.h>

#include "helpers/common/exec-channel.h"
#include "helpers/common/system/proc-stat.h"

namespace rea::helper {

namespace {

#if defined(__x86_64__)
constexpr uint32_t NATIVE_ARCH = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t NATIVE_ARCH = AUDIT_ARCH_AARCH64;
#else
constexpr uint32_t NATIVE_ARCH = 0;
#endif

// Reads are split at this boundary (the smallest page size), so one unmapped page fails only
// its own read.
constexpr uint64_t PAGE = 4096;
// A command line longer than this is left to /proc (which has all of it).
constexpr size_t MAX_COMMAND_BYTES = 256 * 1024;
constexpr size_t MAX_ARGUMENTS = 32768;

bool readRemote(pid_t pid, uint64_t address, void* buffer, size_t size) {
  struct iovec local = {buffer, size};
  struct iovec remote = {reinterpret_cast<void*>(address), size};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == ssize_t(size);
}

bool readRemoteString(pid_t pid, uint64_t address, std::string& out) {
  char chunk[PAGE];
  for (;;) {
    size_t size = size_t(PAGE - address % PAGE);
    if (!readRemote(pid, address, chunk, size)) return false;
    const char* end = static_cast<const char*>(memchr(chunk, '\0', size));
    out.append(chunk, end != nullptr ? size_t(end - chunk) : size);
    if (out.size() > MAX_COMMAND_BYTES) return false;
    if (end != nullptr) return true;
    address += size;
  }
}

// argv of a paused execve/execveat, joined with NULs like /proc/PID/cmdline, and the program's
// path (ExecRequest::path); false when argv cannot be read (then /proc is asked after the exec,
// as without this observation).
bool readArguments(const struct seccomp_notif& request, std::string& cmdline, std::string& path) {
  if (NATIVE_ARCH == 0 || request.data.arch != NATIVE_ARCH) return false;
  uint64_t argv, pathAddress;
  bool relativeToCwd = true;
  if (request.data.nr == __NR_execve) {
    pathAddress = request.data.args[0];
    argv = request.data.args[1];
  } else if (request.data.nr == __NR_execveat) {
    pathAddress = request.data.args[1];
    argv = request.data.args[2];
    relativeToCwd = int(request.data.args[0]) == AT_FDCWD;
  } else {
    return false;
  }
  std::string program;
  if (pathAddress != 0 && readRemoteString(request.pid, pathAddress, program) && !program.empty()) {
    if (program[0] == '/') {
      path = program;
    } else if (relativeToCwd) {
      path = "/proc/" + std::to_string(request.pid) + "/cwd/" + program;
    }
  }
  if (argv == 0) return false;
  for (size_t index = 0; index < MAX_ARGUMENTS; ++index) {
    uint64_t pointer = 0;
    if (!readRemote(request.pid, argv + index * sizeof(pointer), &pointer, sizeof(pointer))) {
      return false;
    }
    if (pointer == 0) return index > 0;
    if (index > 0) cmdline.push_back('\0');
    if (!readRemoteString(request.pid, pointer, cmdline)) return false;
  }
  return false;
}

}  // namespace

std::string execNotifyUnavailableReason() {
  uint32_t action = SECCOMP_RET_USER_NOTIF;
  if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) {
    return std::string("seccomp user notification is not available here (") + strerror(errno) + ")";
  }
  // SECCOMP_USER_NOTIF_FLAG_CONTINUE came in Linux 5.5 (USER_NOTIF in 5.0): without it an
  // answer could only deny or fake the exec, so older kernels keep the /proc path.
  struct utsname name;
  int major = 0, minor = 0;
  if (uname(&name) != 0 || sscanf(name.release, "%d.%d", &major, &minor) != 2 || major < 5 ||
      (major == 5 && minor < 5)) {
    return "this kernel cannot let a notified exec continue (Linux 5.5 needed)";
  }
  return "";
}

ExecNotifier::ExecNotifier(kj::UnixEventPort& eventPort, kj::AutoCloseFd channelParam,
                           std::function<void(ExecRequest)> onExec)
    : eventPort(eventPort), channel(kj::mv(channelParam)), onExec(kj::mv(onExec)) {
  channelWatch = kj::heap<kj::UnixEventPort::FdObserver>(
      eventPort, channel.get(), kj::UnixEventPort::FdObserver::OBSERVE_READ);
  task = waitForListener().eagerlyEvaluate([this](kj::Exception&& exception) {
    failure = std::string("exec observation failed: ") + exception.getDescription().cStr();
    KJ_LOG(ERROR, "kernel-side exec observation failed", exception);
  });
}

ExecNotifier::~ExecNotifier() noexcept(false) {
  task = nullptr;
  listenerWatch = nullptr;
  channelWatch = nullptr;
}

kj::Promise<void> ExecNotifier::waitForListener() {
  if (receiveListener()) {
    channelWatch = nullptr;
    channel = nullptr;
    if (listener == nullptr) return kj::READY_NOW;
    listenerWatch = kj::heap<kj::UnixEventPort::FdObserver>(
        eventPort, listener.get(), kj::UnixEventPort::FdObserver::OBSERVE_READ);
    return serve();
  }
  return channelWatch->whenBecomesReadable().then([this]() { return waitForListener(); });
}

bool ExecNotifier::receiveListener() {
  char bytes[1 + sizeof(int)] = {};
  struct iovec iov = {bytes, sizeof(bytes)};
  union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof(control));
  struct msghdr message;
  memset(&message, 0, sizeof(message));
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control.buffer;
  message.msg_controllen = sizeof(control.buffer);
  ssize_t n = recvmsg(channel.get(), &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return false;
  if (n < 0) {
    failure = std::string("the exec channel failed: ") + strerror(errno);
    return true;
  }
  kj::AutoCloseFd received;
  for (struct cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS &&
        header->cmsg_len == CMSG_LEN(sizeof(int))) {
      int fd;
      memcpy(&fd, CMSG_DATA(header), sizeof(int));
      received = kj::AutoCloseFd(fd);
    }
  }
  if (n == 0) {
    failure = "the launcher closed the exec channel without a listener";
  } else if (bytes[0] == EXEC_CHANNEL_LISTENER && received != nullptr) {
    listener = kj::mv(received);
    gotListener = true;
  } else if (bytes[0] == EXEC_CHANNEL_FAILED && n == ssize_t(sizeof(bytes))) {
    int error;
    memcpy(&error, bytes + 1, sizeof(int));
    failure = std::string("the target could not install the exec filter (") + strerror(error) + ")";
  } else {
    failure = "the exec channel carried a malformed message";
  }
  return true;
}

kj::Promise<void> ExecNotifier::serve() {
  // Readiness is edge-triggered: wait only once nothing is pending.
  if (!answerPending()) {
    // Every task under the filter is gone; nothing can join it any more.
    listenerWatch = nullptr;
    listener = nullptr;
    return kj::READY_NOW;
  }
  return listenerWatch->whenBecomesReadable().then([this]() { return serve(); });
}

bool ExecNotifier::answerPending() {
  for (;;) {
    struct pollfd poller = {listener.get(), POLLIN, 0};
    int ready = poll(&poller, 1, 0);
    if (ready < 0 && errno == EINTR) continue;
    KJ_REQUIRE(ready >= 0, "poll(seccomp listener)", strerror(errno));
    if (ready == 0) return true;
    if ((poller.revents & POLLIN) != 0) {
      answerOne();
      continue;
    }
    return (poller.revents & (POLLHUP | POLLERR | POLLNVAL)) == 0;
  }
}

void ExecNotifier::answerOne() {
  struct seccomp_notif request;
  memset(&request, 0, sizeof(request));  // the kernel insists
  if (ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_RECV, &request) < 0) {
    // ENOENT: the caller was killed between poll and receive; nothing waits for an answer.
    if (errno != ENOENT && errno != EINTR) ++unread;
    return;
  }
  ++notified;
  std::string cmdline, path;
  bool read = request.pid > 0 && readArguments(request, cmdline, path);
  // The caller may have died (and its pid been reused) while we read: only a still-valid
  // notification vouches for what was read.
  if (read && ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &request.id) == 0) {
    onExec(ExecRequest{pid_t(request.pid), commandFromCmdline(cmdline), kj::mv(path)});
  } else {
    ++unread;
  }
  struct seccomp_notif_resp response;
  memset(&response, 0, sizeof(response));
  response.id = request.id;
  response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  // ENOENT: the caller is gone; there is nobody left to answer.
  ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_SEND, &response);
}

}  // namespace rea::helper
