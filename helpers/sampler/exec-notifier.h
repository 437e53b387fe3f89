#pragma once
// Kernel-side exec observation, the sampler's half (helpers/common/exec-channel.h, README.md):
// receives the target's seccomp listener on the exec channel, then answers every execve/
// execveat of the target's tree. While the caller is paused in the system call it reads the
// path's argv from the caller's memory (process_vm_readv), checks with
// SECCOMP_IOCTL_NOTIF_ID_VALID that the caller is still the one that asked, hands the command
// to `onExec`, and lets the call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE). So every exec is
// seen with its command line, whatever the load: the caller waits for us instead of racing us.
//
// Failing open: every notification is answered CONTINUE, read or not (an unreadable argv, a
// call from another ABI); nothing is ever denied. The observation is not a security boundary
// (another thread of the caller may change argv between our read and the kernel's).
// `onExec` is called for an exec that may still fail (ENOENT on a PATH entry): the caller
// matches it with the kernel's exec event, or (sampled mode, no events) checks the program.
//
// Runs on the caller's kj event loop (the sampler's). Owns the channel and the listener: when
// it is destroyed the listener closes and the kernel fails later execs of the target's tree
// with ENOSYS, so destroy it only after the capture's cleanup (process-observer.h).
//
// Errors: a failed receive or read is a count (`unreadCount`), never an exception to the loop;
// a failed install in the target is `problem()`.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include <kj/async-unix.h>
#include <kj/io.h>

namespace rea::helper {

std::string execNotifyUnavailableReason();
// "" when this kernel supports SECCOMP_RET_USER_NOTIF (SECCOMP_GET_ACTION_AVAIL), else why not.

struct ExecRequest {
  pid_t pid;            // the caller (a thread id when a non-leader thread execs)
  std::string command;  // argv as /proc/PID/cmdline would show it (commandFromCmdline)
  std::string path;     // the program as passed, resolved against the caller's cwd when
                        // relative ("/proc/PID/cwd/..."); "" when it cannot be told (execveat
                        // with a directory fd, AT_EMPTY_PATH)
};

class ExecNotifier {
 public:
  ExecNotifier(kj::UnixEventPort& eventPort, kj::AutoCloseFd channel,
               std::function<void(ExecRequest)> onExec);
  // Starts waiting for the target's message on `channel` at once.
  ~ExecNotifier() noexcept(false);
  KJ_DISALLOW_COPY(ExecNotifier);

  bool received() const { return gotListener; }
  // A listener was received (the target installed the filter); stays true after it closed.
  const std::string& problem() const { return failure; }
  // Why no listener came ("" while waiting or serving).
  uint32_t notifiedCount() const { return notified; }
  uint32_t unreadCount() const { return unread; }
  // Execs answered whose argv could not be read (the row then comes from /proc).

 private:
  kj::UnixEventPort& eventPort;
  kj::AutoCloseFd channel;
  kj::AutoCloseFd listener;
  std::function<void(ExecRequest)> onExec;
  kj::Own<kj::UnixEventPort::FdObserver> channelWatch;  // destroyed before the fds they watch
  kj::Own<kj::UnixEventPort::FdObserver> listenerWatch;
  kj::Maybe<kj::Promise<void>> task;
  std::string failure;
  bool gotListener = false;
  uint32_t notified = 0;
  uint32_t unread = 0;

  kj::Promise<void> waitForListener();
  bool receiveListener();  // false: nothing there yet
  kj::Promise<void> serve();
  bool answerPending();  // false: the listener hung up (every filtered task is gone)
  void answerOne();
};

}  // namespace rea::helper
