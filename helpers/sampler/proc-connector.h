#pragma once
// A subscription to the kernel's process events (netlink connector, CN_IDX_PROC,
// PROC_CN_MCAST_LISTEN; needs CAP_NET_ADMIN before Linux 6.6): fork, exec, exit and setsid of every
// process on the machine, each stamped by the kernel with CLOCK_MONOTONIC. The caller filters them
// to the capture (event-tracker.h). Events queue in the socket from the moment of `subscribe()`, so
// a subscription made before the target is spawned sees the target's own fork. Owns: the netlink
// socket (unsubscribed and closed at destruction).
//
// Errors: `subscribe` reports a machine without the connector as a reason, never by throwing; a
// lost stretch of events (the socket overran) is an OVERRUN event; other failures throw.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <kj/array.h>
#include <kj/common.h>
#include <kj/io.h>
#include <kj/memory.h>
#include <kj/one-of.h>

namespace rea::helper {

struct ProcEvent {
  enum Kind {
    FORK,     // `pid` was created by `parentPid` (thread creations are not reported)
    EXEC,     // `pid` replaced its program
    EXIT,     // `pid` exited (`exitStatus` as wait(2) encodes it); threads are not reported
    SID,      // `pid` called setsid()
    OVERRUN,  // the socket overflowed here: events were lost (only `atNs` is meaningful)
  };
  Kind kind;
  uint64_t atNs;    // kernel timestamp (ktime_get_ns, i.e. CLOCK_MONOTONIC)
  pid_t pid;        // the process (thread-group id)
  pid_t parentPid;  // FORK: the parent process; EXIT: the parent at exit (0 when unknown)
  int exitStatus;   // EXIT only
};

void decodeProcEvents(kj::ArrayPtr<const kj::byte> datagram, std::vector<ProcEvent>& out);
// Appends the process events of one netlink datagram (which may hold several messages). Anything
// that is not a complete proc-connector message (wrong connector id, truncated lengths, other
// event kinds, thread events) is skipped.

kj::Maybe<int> findAcknowledgement(kj::ArrayPtr<const kj::byte> datagram, uint32_t ack);
// The errno (0 = accepted) of the kernel's acknowledgement in this datagram whose ack field is
// `ack`, if it holds one.

class ProcConnector {
 public:
  static kj::OneOf<kj::Own<ProcConnector>, std::string> subscribe();
  // Opens a non-blocking NETLINK_CONNECTOR socket with a large receive buffer, sends
  // PROC_CN_MCAST_LISTEN and waits (at most 1 s) for the kernel's acknowledgement. Returns the
  // subscription, or a sentence saying why process events are unavailable.

  explicit ProcConnector(kj::AutoCloseFd socket);
  ~ProcConnector() noexcept(false);
  KJ_DISALLOW_COPY(ProcConnector);

  int fd() const { return socket.get(); }
  // Readable when events are queued (watch it with an FdObserver / poll).

  bool readAvailable(std::vector<ProcEvent>& out);
  // Appends queued events without blocking; an overflow the kernel reported (ENOBUFS) appends an
  // OVERRUN event at the point it was noticed. Returns true once the queue is empty; false after
  // ~4096 datagrams (so a flood cannot starve the caller's loop): call again before waiting for
  // `fd()` to become readable, because readiness is reported only for new data.

 private:
  kj::AutoCloseFd socket;
  kj::Array<kj::byte> buffer;
  bool subscribed = true;

  void sendControl(int operation, uint32_t ack = 0);
  kj::Maybe<std::string> subscribeAcknowledged(uint32_t ack);
};

}  // namespace rea::helper
