#pragma once
// Ownership-verified cleanup of a capture (SPEC B §6.7.1, B §12, A8). Rounds, until a round
// finds no owned member alive:
//   1. list the scope's live members (zombies ignored); inspect each (pidfd + run token);
//   2. a member whose token is missing, different or unreadable is never signalled: reported —
//      except a member of a capture cgroup that `bornInCapture` lists (the proc connector saw it
//      forked from the capture's processes): it is the target's and is killed, token or not,
//      and reported in `signalled` with its ownership (issue 18.4);
//   3. owned members are killed — with cgroup.kill when the scope is a cgroup and every member
//      of that round is owned, else one by one through their pidfds (so a recycled pid or an
//      unowned member is never hit);
//   4. once no owned member is left, unowned members of a capture cgroup are moved to its
//      parent group, alive and unsignalled (they stay in `unowned`, the report incomplete).
// Then the capture cgroup is removed (once empty), and a final scan finds run-token carriers the
// scope did not contain (moved out of the cgroup, or in a group no observed process led): they
// are killed through their pidfds and reported as OUTSIDE. The candidates come from
// `findCandidates`: in sampled mode every process of the machine (`findTokenCarriers`); in exact
// mode, unless events were lost, the processes the proc connector saw forked and not exit (A8:
// nothing else can carry the token), which spares tens of milliseconds of /proc/*/environ reads
// on a busy machine. Once a carrier is found outside the scope, later rounds scan the whole
// machine (its own children may not be candidates). Every candidate is still checked by its
// run token before a kill. Nothing
// that escaped is killed silently or left silently: every signalled process is in `signalled`
// with its escape class, every unowned one in `unowned`.
// Runs on the caller's kj event loop (short timer waits between rounds).
//
// Errors: failures are the report's `problem` (B §6.7.1 sentences); the promise only rejects on
// bugs.

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include <kj/async.h>
#include <kj/timer.h>

#include "helpers/common/system/capture-scope.h"

namespace rea::helper {

struct CleanupReport {
  bool complete;        // nothing owned survives, nothing unowned was met, the cgroup is gone
  std::string problem;  // "" when complete; else the first failure's sentence:
                        // "process group could not be inspected", "group contains an unowned
                        // or PID-reused process", "ownership could not be revalidated", "owned
                        // process group signal failed", "capture cgroup could not be removed"
  std::vector<ProcessFinding> signalled;  // owned processes that were SIGKILLed, once each
  std::vector<ProcessFinding> unowned;    // met but never signalled (still alive when seen;
                                          // moved out of a capture cgroup to its parent)
  bool usedCgroupKill;                    // cgroup.kill did (part of) the work
  bool cgroupRemoved;                     // a capture cgroup existed and was removed

  std::vector<ProcessFinding> escapees() const;
  // The signalled or unowned processes that left the root's group or session, or the scope.
};

kj::Promise<CleanupReport> cleanupCapture(kj::Timer& timer, CaptureScope& scope,
                                          std::string runToken, pid_t rootPid,
                                          std::function<std::vector<pid_t>()> findCandidates,
                                          std::function<std::vector<pid_t>()> bornInCapture = {});
// `bornInCapture`: the processes seen born in the capture (empty function: none known).
// `scope` (and its cgroup) must outlive the promise. Takes up to a few seconds when processes
// are slow to die or unowned members keep a cgroup populated.

}  // namespace rea::helper
