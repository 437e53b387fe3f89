#pragma once
// Where this machine's cgroup hierarchies are mounted (/proc/self/mountinfo) and where rea makes
// its groups in them: the capture cgroup under the cgroup2 mount (capture-cgroup.h) and the
// cgroup v1 pids group of a capture's process bound (helpers/sampler/pids-bound.h). The sampler
// makes these groups; the supervisor looks in the same places for ones left behind
// (supervisor/run/stale-cgroups.h, supervisor/run/owned-cleanup.h), so both ask here.
//
// Errors: none thrown; what cannot be read is an empty result.

#include <string>
#include <vector>

#include <kj/common.h>

namespace rea::helper {

struct MountEntry {
  std::string mountPoint;    // field 5, the kernel's octal escapes (\040 \011 \012 \134) decoded
  std::string fstype;        // after the " - " separator
  std::string superOptions;  // comma-separated ("rw,pids" for a cgroup v1 pids hierarchy)
};

std::vector<MountEntry> parseMountinfo(const std::string& mountinfo);
// Every well-formed line of a /proc/self/mountinfo text, in order.

kj::Maybe<std::string> findCgroup2Mount(const std::string& mountinfo);
// The mount point of the first cgroup2 filesystem in a /proc/self/mountinfo text (field 5, with
// the kernel's octal escapes \040 \011 \012 \134 decoded); empty when there is none.

kj::Maybe<std::string> findCgroup2Mount();
// The same, reading /proc/self/mountinfo.

kj::Maybe<std::string> findCgroup1Mount(const std::string& mountinfo,
                                        const std::string& controller);
// The mount point of the cgroup v1 hierarchy that has `controller` among its super options,
// in a /proc/self/mountinfo text (decoded as above); nullptr when there is none.

kj::Maybe<std::string> findCgroup1Mount(const std::string& controller);
// The same, reading /proc/self/mountinfo.

std::vector<std::string> captureCgroupParents(const std::string& mount);
// Where capture cgroups are made, in order of preference: the hierarchy's root `mount`, then
// this process's own cgroup under it (when the root is not writable). Stale groups are looked
// for in the same places.

std::vector<std::string> captureCgroupCandidates(const std::string& runToken);
// Where the capture cgroup of `runToken` is, if it exists: `<parent>/rea-<runToken>` for each of
// captureCgroupParents() of the cgroup2 mount; empty when no cgroup2 hierarchy is mounted.

std::string pidsGroupParent(const std::string& mount);
// Where v1 pids groups are made under the hierarchy at `mount`: this process's own group there
// (so that a bound the machine puts on rea still holds for the target) when the mount shows it,
// else `mount` itself.

}  // namespace rea::helper
