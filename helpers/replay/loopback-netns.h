#pragma once
// LoopbackNetns: the private network namespace of network_access "loopback" (SPEC A9). One
// namespace per capture, shared by the replay helper (which listens on 127.0.0.1 inside it) and
// the target (which the pty helper starts inside it): it has only `lo`, brought up, and no
// route anywhere else, so the target can reach the replay server and nothing on the host.
//
// How it is made: a short-lived child unshares the namespace, brings `lo` up (SIOCSIFFLAGS) and
// waits while the caller opens /proc/<child>/ns/net; the open fd keeps the namespace alive after
// the child exits, and the caller itself never changes namespace. As root (or with
// CAP_SYS_ADMIN) this is unshare(CLONE_NEWNET). Otherwise the child first creates a user
// namespace mapping only the caller's own uid and gid to themselves, where the kernel allows it;
// the namespace is then owned by that user namespace, and joining it means joining the user
// namespace first. Limits of that fallback: inside, files of other users and groups appear as
// owned by the overflow ids (nobody/nogroup), supplementary groups are dropped from view
// (setgroups is denied), and set-uid programs do not gain privileges. If neither works the
// result says why (errno of each attempt, and the sysctl that forbids user namespaces) and the
// supervisor refuses the scenario before launch — never a silent fallback to host networking.
//
// Typical use (the supervisor creates it; the fds go to both helpers):
//   LoopbackNetnsResult r = createLoopbackNetns();
//   KJ_IF_MAYBE(ns, r.netns) { ... pass ns->net (and ns->user) ... } else { error(r.detail); }
//   // replay helper, before listening (single-threaded):   enterLoopbackNetns(netFd, userFd);
//   // pty helper, in the target child between fork and exec: joinLoopbackNetns(netFd, userFd);
//
// Errors: createLoopbackNetns() and probeLoopbackNetns() never throw (failure is the result);
// enterLoopbackNetns() throws FAILED naming the setns() that failed.

#include <string>

#include <kj/common.h>
#include <kj/io.h>

namespace rea::helper {

struct LoopbackNetns {
  enum class Mode { DIRECT, USER_NAMESPACE };
  Mode mode = Mode::DIRECT;
  kj::AutoCloseFd net;   // /proc/<pid>/ns/net of the namespace (O_CLOEXEC)
  kj::AutoCloseFd user;  // its owning user namespace in USER_NAMESPACE mode, else empty (-1)
};

struct LoopbackNetnsResult {
  kj::Maybe<LoopbackNetns> netns;
  std::string detail;  // how it was made, or why it could not be (no secrets, no paths of ours)
};

LoopbackNetnsResult createLoopbackNetns();
// Creates a new namespace with only `lo`, up. Forks one child that exits before this returns;
// safe to call from a multi-threaded process (the child only makes system calls).

void enterLoopbackNetns(int netFd, int userFd);
// Moves the calling thread into the namespace: setns(userFd, CLONE_NEWUSER) first when
// userFd >= 0 (the kernel requires a single-threaded caller for that), then setns(netFd,
// CLONE_NEWNET). Sockets created afterwards live in the namespace. Call before creating threads.

int joinLoopbackNetns(int netFd, int userFd);
// The same for a child between fork and exec: async-signal-safe, no allocation, returns 0 or
// the errno of the failed setns().

struct LoopbackNetnsProbe {
  bool available;
  LoopbackNetns::Mode mode;  // meaningful when available
  std::string detail;
};

LoopbackNetnsProbe probeLoopbackNetns();
// Creates and releases one namespace (for `rea doctor` and the pre-launch check).

}  // namespace rea::helper
