#pragma once
// The capture's own cgroup v2 group (A8): `<cgroup2 mount>/rea-<run token>`, created before the
// target exists; the target enters it before it execs, and every descendant is born inside it.
// It gives exact membership (cgroup.procs lists live members, zombies excluded), exact emptiness
// (cgroup.events `populated`, watchable through poll) and whole-tree cleanup (cgroup.kill).
// Owns: the directory (removed by `remove()` or at destruction) and fds on it (and on the
// parent's cgroup.procs, where unowned members are released to).
//
// How a launcher puts the target inside (the pty helper does this):
//   - preferred: `cloneIntoCgroup(cgroup.dirFd())` below (clone3 with CLONE_INTO_CGROUP: the
//     child is born in the group, atomically), or open `path()` itself with
//     O_RDONLY|O_DIRECTORY|O_CLOEXEC and pass that fd as clone_args.cgroup;
//   - otherwise: after fork and before exec, the child writes "0" to `path() + "/cgroup.procs"`
//     (or the parent writes the child's pid there while the child waits for it).
//
// Errors: `create` reports an unusable machine as a reason (no cgroup2 mount, read-only, no
// cgroup.kill), never by throwing; other methods throw kj::Exception on unexpected errnos.

#include <sys/types.h>

#include <string>
#include <vector>

#include <kj/common.h>
#include <kj/io.h>
#include <kj/memory.h>
#include <kj/one-of.h>

#include "helpers/common/system/ownership.h"

namespace rea::helper {

class CaptureCgroup {
 public:
  static kj::OneOf<kj::Own<CaptureCgroup>, std::string> create(const std::string& runToken);
  // Creates `<mount>/rea-<runToken>` (falling back to a child of this process's own cgroup when
  // the mount's root is not writable). Returns the group, or a sentence saying why the machine
  // allows no capture cgroup. A group that already exists under that name is refused (a token
  // is used once). The new group carries the owner record of cgroup-owner.h (this process's
  // parent, the supervisor), so that other rea runs can tell when it is stale.

  CaptureCgroup(std::string path, std::string runToken, kj::AutoCloseFd dirFd);
  ~CaptureCgroup() noexcept(false);
  // If `remove()` has not succeeded: ownership-verified SIGKILL of the members (those carrying
  // the run token: all of them at once with cgroup.kill when every member is owned, else each
  // owned one through its pidfd; an unowned member is never signalled but released to the
  // parent group), then up to ~1 s of rmdir attempts. A group that stays populated (a release
  // failed) is left behind with a warning.
  KJ_DISALLOW_COPY(CaptureCgroup);

  const std::string& path() const { return groupPath; }
  int dirFd() const { return directory.get(); }
  // O_RDONLY|O_DIRECTORY|O_CLOEXEC fd of the group, for clone_args.cgroup.

  std::vector<pid_t> members();
  // cgroup.procs: the live processes in the group (zombies are not members). Empty once the
  // group is removed.

  bool populated();
  // cgroup.events `populated`: true while any live process is in the group.

  int eventsWatchFd() { return watch.get(); }
  // cgroup.events, open for reading: it polls POLLPRI (epoll: EPOLLPRI, kj: OBSERVE_URGENT) once
  // the file changed (e.g. the group became empty). Call `drainEventsWatch()` after it fired,
  // then re-read `populated()`.
  bool drainEventsWatch();
  // Re-arms the watch; true when cgroup.events changed since the previous drain.

  void kill();
  // Writes "1" to cgroup.kill: SIGKILL to every member, including ones forked during the call.
  // Callers verify ownership first (see the destructor, and cleanup.h).

  bool release(const InspectedProcess& process);
  // Moves a live member that is not the capture's (token missing, different or unreadable) to
  // the parent group, untouched otherwise, so that the capture's group can be removed (B §6.7.1
  // never signals it; A8 removes the group). Returns false when it had already exited. The pid
  // is written while the pidfd proves the inspected process alive: a recycled pid would need a
  // full pid wrap between that probe and the write. Throws when the move is refused (e.g. the
  // parent's cgroup.procs could not be opened before the helper's lock-down).

  bool remove();
  // rmdir; true once the directory is gone (idempotent), false while it is still populated.

  bool isRemoved() const { return removed; }

 private:
  std::string groupPath;
  std::string runToken;
  kj::AutoCloseFd directory;
  kj::AutoCloseFd killFile;                // cgroup.kill, open for writing
  kj::Maybe<kj::AutoCloseFd> parentProcs;  // ../cgroup.procs, open for writing if permitted
  kj::AutoCloseFd watch;                   // cgroup.events (drainEventsWatch)
  std::string lastEvents;                  // its text at the last drain
  bool removed = false;

  std::string readFile(const char* name);
};

pid_t cloneIntoCgroup(int cgroupDirFd, int* pidfdOut = nullptr);
// fork() into the group: clone3(CLONE_INTO_CGROUP [| CLONE_PIDFD], exit_signal SIGCHLD).
// Returns 0 in the child (which may only call async-signal-safe functions until it execs), the
// child's pid in the parent, and stores a pidfd in *pidfdOut when given. Throws on failure.

}  // namespace rea::helper
