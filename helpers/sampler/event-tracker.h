#pragma once
// Exact-mode observation (A8): turns the machine-wide stream of process events into the
// capture's samples. It follows the descendants of the root from the root's own fork event on:
// a fork by a tracked process adds the child, an exit removes it. Each state change is one row:
//   fork  -> the child with its parent's command (a fork copies its parent's image);
//   exec  -> the new command, read from /proc/PID/cmdline at once (it may race with a fast
//            exit: then the kernel's short name from /proc/PID/stat, in brackets like ps shows
//            an argv-less process, e.g. "[true]"; if even that is gone, the row is missing and
//            counted (SampleRecorder::noteUnreadCommand); likewise when, after the read, a
//            later exec of the same pid is already queued (`laterExecQueued`: /proc may have
//            shown that later program) or a live process shows no argv (it is in the middle
//            of its next exec));
//   setsid-> the new group and session;
//   exit  -> the last known ids with an empty command (B's "live -> exited").
// The root has no row before its exec (its fork, its setsid): until then it is the launcher
// (B §12, 57938a84); its exit is recorded even if it never exec'd.
// An OVERRUN (lost events) marks the samples partial and re-synchronises the tracked set from
// the capture cgroup's member list.
// Owns: the tracked set. Reads /proc; never signals.
//
// Errors: races with exiting processes are results; throws only on unexpected errnos.

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "helpers/common/system/proc-stat.h"
#include "helpers/sampler/proc-connector.h"
#include "helpers/sampler/sample-recorder.h"

namespace rea::helper {

class EventTracker {
 public:
  EventTracker(pid_t rootPid, SampleRecorder& recorder,
               std::function<std::vector<pid_t>()> listMembers, ProcReader& proc = liveProcReader(),
               std::function<bool(pid_t)> laterExecQueued = nullptr,
               std::function<kj::Maybe<std::string>(pid_t)> notifiedCommand = nullptr);
  // `listMembers` returns the capture cgroup's live members (used after an overrun).
  // `laterExecQueued(pid)`: is an EXEC of `pid` queued behind the event being handled (read
  // but not yet handled, or still in the kernel's queue)? A wrapper (`sh -c 'exec prog'`,
  // `env`, `nice`, `setsid`) execs again within a millisecond, often before the observer
  // wakes, and /proc then names the later program. Null: nothing is ever queued.
  // `notifiedCommand(pid)`: the command line of the exec being handled as read kernel-side
  // while the caller was paused (exec-notifier.h), or null: then /proc is read as above.

  void handle(const ProcEvent& event);
  // Events must come in kernel order (as ProcConnector delivers them).

  bool hasRoot() const { return rootSeen; }
  // True once the root's fork (or, failing that, its exec) has been seen.

  size_t trackedCount() const { return tracked.size(); }
  bool isTracked(pid_t pid) const { return tracked.count(pid) != 0; }
  std::vector<pid_t> trackedPids() const;
  // The descendants seen forked (or re-synchronised) and not yet seen exit.

 private:
  struct Process {
    pid_t ppid;
    std::optional<pid_t> pgid;
    std::optional<pid_t> sid;
    std::string command;
  };
  pid_t rootPid;
  SampleRecorder& recorder;
  std::function<std::vector<pid_t>()> listMembers;
  ProcReader& proc;
  std::function<bool(pid_t)> laterExecQueued;
  std::function<kj::Maybe<std::string>(pid_t)> notifiedCommand;
  std::map<pid_t, Process> tracked;
  bool rootSeen = false;
  bool rootExeced = false;

  void offer(uint64_t atNs, pid_t pid, const Process& process, bool exited = false);
  void refreshIds(pid_t pid, Process& process);
  void resynchronise(uint64_t atNs);
};

}  // namespace rea::helper
