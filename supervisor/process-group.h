#pragma once
// Ownership-verified observation and cleanup of one process group (SPEC B §6.7.1 with the
// 1.6.0 fixes of B §12): members are found by scanning /proc for processes whose pgid is G;
// zombies are ignored (they hold no resources and cannot be signalled away); a member is ours
// only when its /proc/PID/environ carries REA_PROCESS_RUN_ID=<run token>. A process that exits
// between listing and reading is simply gone, not a failure. A member whose token is missing or
// different is never signalled: it is reported.
//
// Errors: throws kj::Exception only when /proc itself cannot be listed.

#include <sys/types.h>

#include <string>
#include <vector>

namespace rea::supervisor {

struct GroupMember {
  pid_t pid;
  bool owned;  // environ carries the run token
};

struct GroupObservation {
  enum class State { EMPTY, ALIVE, UNVERIFIABLE };
  State state;
  std::vector<GroupMember> members;  // live (non-zombie) members
  std::string problem;               // for UNVERIFIABLE: why, without secrets
};

GroupObservation observeGroup(pid_t pgid, const std::string& runToken);
// One observation of group `pgid`: EMPTY (no live member), ALIVE (all live members carry the
// token) or UNVERIFIABLE (some member's environment is unreadable or carries another token).

struct GroupCleanup {
  bool complete;                 // nothing owned is left and nothing unowned was found
  std::vector<pid_t> signalled;  // owned members that got SIGKILL
  std::vector<pid_t> unowned;    // members we refused to signal
  std::string problem;
};

GroupCleanup cleanupOwnedGroup(pid_t pgid, const std::string& runToken);
// SIGKILLs every owned member of the group individually (never kill(-pgid): a foreign process
// that joined the group must not be hit), then waits briefly until they are gone.

enum class TokenCheck { OWNED, FOREIGN, GONE, UNREADABLE };
TokenCheck checkRunToken(pid_t pid, const std::string& runToken);
// Reads /proc/PID/environ (NUL-separated NAME=VALUE; entries without `=` or starting with `=`
// ignored) and compares REA_PROCESS_RUN_ID with the token.

}  // namespace rea::supervisor
