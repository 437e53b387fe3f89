#pragma once
// The supervisor's own, minimal owned-process cleanup: the fallback for when the sampler helper
// is lost or the capture is cancelled before the helper's cleanup ran (SPEC B §6.6.3 step 6,
// B §6.7.1, A8, A13). Synchronous, so it can run from a destructor. Uses the sampler's tested
// ownership code (helpers/sampler): every process is inspected through a pidfd and its run token
// before it is signalled; a process without the token is never signalled, only counted.
//   1. the capture cgroup (if any): members are killed (cgroup.kill when all are owned, else one
//      by one; unowned ones are moved to the parent group, alive), then the directory is removed;
//   2. the root's process group: owned members are SIGKILLed through their pidfds.
// Owns: nothing beyond the call.
//
// Errors: failures are the result's `problem` (B §6.7.1 sentences); never throws for them.

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace rea::supervisor {

struct OwnedCleanup {
  bool complete = true;
  std::string problem;  // "" when complete
  size_t signalled = 0;
  size_t unowned = 0;
};

OwnedCleanup cleanUpOwnedProcesses(const std::string& cgroupPath, const std::string& runToken,
                                   pid_t rootPid);
// `cgroupPath` "" = none known: a group named after the token where a sampler would have made
// it is cleaned up all the same (a helper lost during prepare); `rootPid` 0 = no target was
// started. Takes up to ~1.5 s when processes are slow to die.

bool isCaptureCgroupPath(const std::string& path, const std::string& runToken);
// True when `path` is a capture cgroup this capture may own: an absolute path without "." or
// ".." components, inside this machine's cgroup2 mount, whose last component is
// "rea-<runToken>". A sampler's claim is checked with it before anything trusts the path.

bool isPidsGroupPath(const std::string& path, const std::string& runToken);
// The same inside this machine's cgroup v1 pids hierarchy (helpers/sampler/pids-bound.h).

}  // namespace rea::supervisor
