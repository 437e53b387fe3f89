#pragma once
// HelperProcess: one running helper binary (rea-pty, rea-sampler, ...) and the supervisor's end
// of the socketpair it speaks Cap'n Proto over. The only code in the supervisor that forks
// (STYLE §8). Owns the child's pidfd until the child is reaped (reaping empties it, so no signal
// can reach a recycled pid), the socketpair end until takeConnection(), and the pipe carrying
// the helper's stderr, which it copies to the supervisor's stderr prefixed with the helper name.
//
// The child gets fd 0 = /dev/null, fd 1 and 2 = the stderr pipe, fd 3 = its socketpair end and
// nothing else (close_range), PR_SET_PDEATHSIG(SIGKILL) and an explicit minimal environment (only
// REA_SECCOMP_DEBUG is passed through when set). If exec fails it writes one line naming the binary
// and exits 127.
//
// Errors: spawn() throws FAILED naming the binary when the socketpair, pipe, fork or pidfd
// cannot be made. Everything after that is data: how the helper ended is a HelperEnd.

#include <kj/async-io.h>
#include <kj/async-unix.h>
#include <kj/time.h>
#include <kj/vector.h>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace rea::supervisor {

constexpr kj::Duration HELPER_STOP_GRACE = 500 * kj::MILLISECONDS;
// How long a helper asked to stop (or whose link gave up on it) may take to exit on its own
// before it is killed.

struct HelperEnd {
  // How a helper process ended, as reported in Evidence (A13) with the helper's name.
  enum class Kind {
    EXITED,             // exited on its own with `code` (0 or not) while we still needed it
    STOPPED_BY_US,      // we asked it to stop (or killed it) and it went: not a fault by itself
    SECCOMP_KILL,       // killed by SIGSYS (its filter), or exit 159 from a debug-mode trap
    CRASHED,            // killed by `signal`, which we did not send
    DIED_BEFORE_READY,  // ended before answering its first request: a setup or policy bug
  };
  Kind kind;
  int code = 0;    // exit status when it exited (EXITED, and DIED_BEFORE_READY by exit)
  int signal = 0;  // terminating signal when killed (SECCOMP_KILL, CRASHED, ... by signal)

  std::string describe() const;
  // One English phrase, e.g. "crashed with signal 11 (SIGSEGV)", "exited with status 3",
  // "was killed by its seccomp filter (SIGSYS)", "died before it was ready (exit status 127)".
};

struct HelperFault {
  // A helper was lost or misbehaved: the capture is truncated and gets a residual unknown (A13)
  // naming the helper and saying how it ended.
  std::string reason;            // e.g. "the pty helper crashed with signal 11 (SIGSEGV)"
  std::optional<HelperEnd> end;  // how the process ended; always set once the link finished

  std::string sentence() const;
  // `reason`, plus how the process ended when the reason does not say it already (a call that
  // failed with "disconnected" is often the first sign of a crash): "the replay helper failed to
  // finish: Peer disconnected. (it crashed with signal 6 (SIGABRT))".
};

const char* helperEndKindName(HelperEnd::Kind kind);
// "exited", "stopped_by_us", "seccomp_kill", "crashed", "died_before_ready".

std::string defaultHelperDirectory();
// Where helper binaries live: $REA_HELPER_DIR when set and non-empty; else the directory of
// /proc/self/exe when the helpers are there (a build tree: every binary lands in build/bin);
// else, installed, <prefix>/libexec/rea beside that <prefix>/bin.

class HelperProcess;

void hangUp(kj::Maybe<kj::Own<HelperProcess>>& process,
            kj::Maybe<kj::Own<kj::AsyncIoStream>>& connection);
// A link's shutdown: hands `connection` (if any) to the helper's retire(), or drops it when
// there is no helper; `connection` is empty afterwards. Destroy the RPC system and the network
// over the connection first.

class HelperProcess {
 public:
  static kj::Own<HelperProcess> spawn(kj::AsyncIoContext& io, kj::StringPtr name,
                                      kj::StringPtr path, kj::ArrayPtr<const kj::StringPtr> args,
                                      int execChannel = -1);
  // Forks and execs `path` (argv[0] = path, then `args`) with fd 3 = one end of a new
  // socketpair, and fd 4 = a copy of `execChannel` when it is >= 0 (the exec channel,
  // helpers/common/exec-channel.h; the caller keeps and closes its own). `name` ("pty") prefixes
  // its stderr lines and names it in reports. The child is being watched (pidfd) before this
  // returns.

  ~HelperProcess() noexcept(false);
  // If the child was not reaped yet: SIGKILL and a blocking reap (it cannot outlive us).

  KJ_DISALLOW_COPY(HelperProcess);

  kj::StringPtr name() const { return name_; }
  pid_t pid() const { return pid_; }

  kj::Own<kj::AsyncIoStream> takeConnection();
  // The supervisor's end of the socketpair. Once; a second call throws FAILED. Dropping it is
  // how the helper is told to exit (a helper whose connection drops exits at once).

  void retire(kj::Own<kj::AsyncIoStream> connection);
  // How a link tells the helper to exit once it needs nothing more: our end of the socketpair
  // is shut for writing (the helper reads end-of-stream, and a helper whose connection drops
  // exits at once) but kept open for its last writes until it is reaped. Closing it outright
  // made those writes fail with EPIPE, and the exception cost the helper a one-time sort of its
  // unwind tables (several ms) on the capture's critical path (bench/README.md).

  void markReady();
  // Call when the helper answered its first request; an end before this is DIED_BEFORE_READY.

  kj::Promise<HelperEnd> whenEnded();
  // Resolves once the child has been reaped. May be called any number of times.

  kj::Maybe<const HelperEnd&> end() const;
  // The classification once reaped, else null.

  void kill();
  // SIGKILL now via pidfd_send_signal (no-op once reaped). The end is then STOPPED_BY_US
  // (a signal we sent is not a fault).

  kj::Promise<HelperEnd> stop(kj::Duration grace);
  // The ordered tail of a shutdown: call after dropping the connection. Waits up to `grace` for
  // the helper to exit by itself, then SIGKILLs it, then resolves with its end. A voluntary exit
  // with status 0 after stop() is STOPPED_BY_US.

  kj::Promise<HelperEnd> stopLost(kj::Duration grace);
  // stop() for a helper already lost: one dying by itself (its connection dropped) first gets
  // `grace` to end, so its end says how (stop() would count any end from then on as ours).

  HelperProcess(kj::AsyncIoContext& io, kj::StringPtr name, pid_t pid, kj::AutoCloseFd pidfd,
                kj::Own<kj::AsyncIoStream> connection, kj::AutoCloseFd stderrPipe);
  // Use spawn().

 private:
  kj::AsyncIoContext& io;
  kj::String name_;
  pid_t pid_;
  kj::Maybe<kj::AutoCloseFd> pidfd;                                 // emptied when reaped
  kj::Maybe<kj::Own<kj::UnixEventPort::FdObserver>> pidfdObserver;  // dies before the pidfd
  kj::Maybe<kj::Own<kj::AsyncIoStream>> connection;
  kj::Maybe<kj::Own<kj::AsyncIoStream>> retired;  // half-closed by retire(), dropped when reaped
  bool ready = false;
  bool stopping = false;    // stop() or kill() was called: status 0 is a requested stop
  bool killedByUs = false;  // we sent SIGKILL: that death is not a fault
  kj::Maybe<HelperEnd> end_;
  kj::Own<kj::PromiseFulfiller<void>> reapedFulfiller;
  kj::ForkedPromise<void> reaped;
  kj::Promise<void> stderrCopy;
  kj::Promise<void> exitWatcher;

  kj::Promise<void> watchExit();
  HelperEnd classify(const siginfo_t& info) const;
  kj::Promise<void> copyStderr(kj::Own<kj::AsyncInputStream> in, kj::Own<kj::Vector<char>> line);
};

}  // namespace rea::supervisor
