#pragma once
// What "the capture's processes" means for settlement and cleanup, in each mode:
//   - CgroupScope: the live members of the capture cgroup (exact: every descendant, whatever
//     group or session it moved to; zombies are not members);
//   - GroupScope: the live, non-zombie processes whose process group is the root's or one led
//     by an observed process (pid = pgid) — B §6.7 with the 1.6.0 fixes of B §12.
// Plus ProcessFinding, the report line naming one process the capture met at the end.
// Owns: nothing (CgroupScope refers to the CaptureCgroup).
//
// Errors: `liveMembers` throws when the membership cannot be listed at all.

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "helpers/common/system/ownership.h"
#include "helpers/common/system/proc-stat.h"

namespace rea::helper {

class CaptureCgroup;

enum class Escape {
  NONE,         // still in the root's process group
  NEW_GROUP,    // moved to another process group of the root's session (setpgid)
  NEW_SESSION,  // started its own session (setsid, e.g. a double-forked daemon)
  OUTSIDE,      // carries the run token but was outside the scope (left the cgroup, or in a
                // group no observed process led): found only by the final token scan
};

const char* escapeName(Escape escape);
// "none", "new_group", "new_session", "outside".

struct ProcessFinding {
  pid_t pid;
  pid_t ppid;
  pid_t pgid;
  pid_t sid;
  std::string command;  // cmdline as in samples; "" if it could not be read
  Ownership ownership;
  Escape escape;
};

ProcessFinding describeProcess(const ProcStat& stat, Ownership ownership, pid_t rootPid);
// Reads the command and classifies the escape relative to the root (whose pid is its pgid and
// sid, as the pty helper starts it).

class CaptureScope {
 public:
  virtual std::vector<ProcStat> liveMembers() = 0;
  // The scope's live, non-zombie processes right now.
  virtual bool isEmpty() = 0;
  // No live member (exact for a cgroup; a fresh listing for groups).
  virtual kj::Maybe<CaptureCgroup&> cgroup() = 0;
  // The cgroup behind the scope, if any (cleanup uses cgroup.kill and removes it).
};

class CgroupScope final : public CaptureScope {
 public:
  explicit CgroupScope(CaptureCgroup& group) : group(group) {}
  std::vector<ProcStat> liveMembers() override;
  bool isEmpty() override;
  kj::Maybe<CaptureCgroup&> cgroup() override { return group; }

 private:
  CaptureCgroup& group;
};

class GroupScope final : public CaptureScope {
 public:
  explicit GroupScope(std::set<pid_t> groups, std::map<pid_t, uint64_t> leaderStartTimes = {})
      : groups(kj::mv(groups)), leaderStartTimes(kj::mv(leaderStartTimes)) {}
  // `leaderStartTimes`: the start time (proc-stat.h) of each group's leader when it was
  // observed. A group whose leader pid now names a process with another start time is left
  // out: the pid was recycled, which the kernel allows only once no process of the observed
  // group is left, so every member is a stranger's (B §12 identity guard, applied to groups).
  std::vector<ProcStat> liveMembers() override;
  bool isEmpty() override { return liveMembers().empty(); }
  kj::Maybe<CaptureCgroup&> cgroup() override { return nullptr; }

  const std::set<pid_t>& groupIds() const { return groups; }

 private:
  std::set<pid_t> groups;
  std::map<pid_t, uint64_t> leaderStartTimes;
};

}  // namespace rea::helper
