#include "helpers/common/system/capture-scope.h"

#include <algorithm>

#include <kj/debug.h>

#include "helpers/common/system/capture-cgroup.h"

namespace rea::helper {

const char* escapeName(Escape escape) {
  switch (escape) {
    case Escape::NONE:
      return "none";
    case Escape::NEW_GROUP:
      return "new_group";
    case Escape::NEW_SESSION:
      return "new_session";
    case Escape::OUTSIDE:
      return "outside";
  }
  KJ_UNREACHABLE;
}

ProcessFinding describeProcess(const ProcStat& stat, Ownership ownership, pid_t rootPid) {
  ProcessFinding finding{stat.pid, stat.ppid, stat.pgid, stat.sid, {}, ownership, Escape::NONE};
  KJ_IF_MAYBE (command, readCommand(stat.pid)) {
    finding.command = *command;
  }
  if (stat.sid != rootPid) {
    finding.escape = Escape::NEW_SESSION;
  } else if (stat.pgid != rootPid) {
    finding.escape = Escape::NEW_GROUP;
  }
  return finding;
}

std::vector<ProcStat> CgroupScope::liveMembers() {
  std::vector<ProcStat> members;
  for (pid_t pid : group.members()) {
    KJ_IF_MAYBE (stat, readStat(pid)) {
      if (!stat->isZombie()) members.push_back(kj::mv(*stat));
    }
  }
  return members;
}

bool CgroupScope::isEmpty() {
  return !group.populated();
}

std::vector<ProcStat> GroupScope::liveMembers() {
  std::vector<ProcStat> members;
  std::set<pid_t> recycled;  // observed groups whose leader's pid names another process now
  for (pid_t pid : listPids()) {
    KJ_IF_MAYBE (stat, readStat(pid)) {
      auto leader = leaderStartTimes.find(stat->pid);
      if (leader != leaderStartTimes.end() && leader->second != 0 &&
          leader->second != stat->startTime) {
        recycled.insert(stat->pid);
      }
      // Zombies are ignored (B §12, 48283260): they hold nothing and cannot be signalled away.
      if (groups.count(stat->pgid) != 0 && !stat->isZombie()) members.push_back(kj::mv(*stat));
    }
  }
  if (!recycled.empty()) {
    members.erase(std::remove_if(members.begin(), members.end(),
                                 [&](const ProcStat& m) { return recycled.count(m.pgid) != 0; }),
                  members.end());
  }
  return members;
}

}  // namespace rea::helper
