#pragma once
// PidsBound: the capture's bound on how many of the target's processes may live at once
// (issue 18.7): `pids.max` of a pids controller group the whole target is in, so that a fork
// bomb inside a capture fails its forks instead of taking the machine down. The operator sets
// the number (REA_PROCESS_MAX_PIDS, docs/policy.md).
//
// Where the bound lives:
//   - cgroup v2: the capture cgroup itself, when its parent delegates the `pids` controller
//     (it is then enabled in the parent's cgroup.subtree_control);
//   - cgroup v1: on a hybrid machine (v2 mounted beside v1 controllers, as on Debian 12 here)
//     the pids controller belongs to a v1 hierarchy. A group `rea-<run token>` is made there,
//     inside rea's own group (pidsGroupParent(), helpers/common/system/cgroup-mounts.h), and the
//     launcher joins it before the target execs (joinPath(): write "0" to its `tasks`); every
//     descendant is born in it. It is removed once the capture's cleanup killed every member; an
//     empty one whose capture cgroup is gone is left over (supervisor/run/stale-cgroups.c++ removes
//     it).
// Neither: apply() says why, and the target runs unbounded (rea doctor says so too).
//
// Errors: apply() reports an unusable machine as a reason, never by throwing; limitHits()
// reads 0 when the events file cannot be read.

#include <cstdint>
#include <string>

#include <kj/common.h>
#include <kj/memory.h>
#include <kj/one-of.h>

namespace rea::helper {

class PidsBound {
 public:
  static kj::OneOf<kj::Own<PidsBound>, std::string> apply(const std::string& captureCgroupPath,
                                                          const std::string& runToken,
                                                          uint32_t maxPids);
  // Sets `maxPids` (≥ 1) as the capture's bound, in the capture cgroup (v2) or in a v1 group
  // of its own. Call before the target exists, with the privileges the capture cgroup needed.

  PidsBound(std::string eventsPath, std::string v1GroupPath, uint32_t maxPids);
  ~PidsBound() noexcept(false);  // removes the v1 group if remove() has not
  KJ_DISALLOW_COPY(PidsBound);

  const std::string& joinPath() const { return v1Group; }
  // The v1 group the launcher must join before the target execs; "" with the v2 bound.

  uint32_t maxPids() const { return max; }

  uint64_t limitHits();
  // pids.events `max`: how many forks the bound refused so far.

  bool remove();
  // v1: rmdir of the group; true once it is gone (at once for v2). False while a member lives.

 private:
  std::string eventsPath;
  std::string v1Group;
  uint32_t max;
  bool removed = false;
};

}  // namespace rea::helper
