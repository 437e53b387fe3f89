#pragma once
// Capture cgroups left behind by a rea that was SIGKILLed (issue "Reliability": the next rea run
// or `rea doctor --clean` removes them). Finds every `rea-<run token>` group where the sampler
// makes them (helpers/common/system/cgroup-mounts.h: the cgroup2 root, then rea's own cgroup)
// and judges each by its owner record (helpers/common/system/cgroup-owner.h): only a group whose
// owner provably ended is stale; a live capture's group is never touched.
//
// Removal of a stale group: cgroup.kill when anything is still inside (membership of a capture
// cgroup is proof of descent from that capture's target: a process is born there or moved
// there by root, never by pid reuse), wait until it is empty, rmdir. Up to ~2 s per group.
//
// Errors: none thrown; a group that could not be removed is listed in `failed` with why.

#include <string>
#include <vector>

namespace rea::supervisor {

struct StaleCaptureCgroup {
  std::string path;
  std::string reason;  // "owner pid 1234 has exited"
};

struct StaleCaptureCgroups {
  std::vector<StaleCaptureCgroup> found;   // groups with no live owner
  std::vector<std::string> removed;        // paths removed by this call (when asked to)
  std::vector<StaleCaptureCgroup> failed;  // could not be removed, and why
};

StaleCaptureCgroups findStaleCaptureCgroups(bool remove);
// Scans and judges now; with `remove`, removes each stale group as above. Nothing is found
// when no cgroup2 hierarchy is mounted.

}  // namespace rea::supervisor
