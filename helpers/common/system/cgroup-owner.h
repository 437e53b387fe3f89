#pragma once
// Who owns a capture cgroup, and whether a `rea-<run token>` group found on the machine is
// stale (its rea was SIGKILLed, so no cleanup ran) — issue "rea doctor", issue "Reliability".
//
// The owner record: right after mkdir, CaptureCgroup::create writes the extended attribute
// `user.rea.owner` on the group directory: "<pid> <start time> <pid namespace>" of the process
// that owns the capture (the sampler's parent: the rea supervisor). The group lives in the
// global cgroup tree, so the record is on the group itself (not in a TMPDIR another rea may
// not see). A group is stale only when its owner provably ended:
//   - the record names a pid of *our* PID namespace whose start time differs or which is gone
//     (pid + start time is a process's identity: pid reuse cannot make a dead owner look alive);
//   - a record from another PID namespace is never judged (that pid means nothing here);
//   - no (or an unreadable) record: made by a rea that records none, or one killed between mkdir
//     and the record: stale only once older than a minute (like a temporary root with no
//     owner file, temp-root.h);
//   - any group younger than two seconds is never touched (the temporary roots' age guard).
// Only names "rea-" + a lowercase hyphenated UUID are capture cgroups (tests' groups differ).
//
// The pure part (format, parse, judge) has no system access; `ownerRecordForParent`,
// `ownPidNamespace` and `processIdentity` read /proc.
//
// Errors: none thrown; what cannot be read is an empty result.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace rea::helper {

constexpr char CGROUP_OWNER_XATTR[] = "user.rea.owner";

struct CgroupOwner {
  pid_t pid = 0;
  uint64_t startTime = 0;     // /proc/PID/stat field 22, clock ticks since boot
  uint64_t pidNamespace = 0;  // inode of /proc/self/ns/pid where `pid` is meaningful
};

std::string formatOwnerRecord(const CgroupOwner& owner);
// "<pid> <start time> <pid namespace>".

std::optional<CgroupOwner> parseOwnerRecord(const std::string& text);
// The inverse; nullopt for anything else (pid <= 0, missing or extra fields, non-digits).

bool isCaptureCgroupName(const std::string& name);
// "rea-" followed by a lowercase hyphenated UUID (the run token, B §6.1).

struct CgroupFacts {
  std::optional<std::string> ownerRecord;  // the xattr's value; nullopt when absent/unreadable
  int64_t ageSeconds = 0;                  // now - the directory's mtime
};

struct CgroupVerdict {
  bool stale = false;
  std::string reason;  // why it is or is not stale, one sentence for `rea doctor`
};

constexpr int64_t CGROUP_YOUNG_SECONDS = 2;
constexpr int64_t CGROUP_UNRECORDED_SECONDS = 60;

struct ProcessIdentity {
  enum State { ALIVE, GONE, UNKNOWN };
  State state = UNKNOWN;   // GONE: no such pid, or a zombie; UNKNOWN: /proc would not tell
  uint64_t startTime = 0;  // when ALIVE
};

CgroupVerdict judgeCaptureCgroup(const CgroupFacts& facts, uint64_t ourPidNamespace,
                                 const std::function<ProcessIdentity(pid_t)>& identityOf);
// `identityOf(pid)` looks a pid up in our namespace (`processIdentity` on the machine). An
// UNKNOWN owner is treated as alive: a group is never removed on a guess.

std::optional<CgroupOwner> ownerRecordForParent();
// The record naming this process's parent (getppid(): for the sampler helper, the rea
// supervisor), read from /proc. A parent outside our PID namespace (getppid() is 0: we are its
// init, e.g. a test run under `unshare -p`) cannot be named: then this process itself is the
// owner. nullopt when neither the stat nor our pid namespace can be read.

std::optional<uint64_t> ownPidNamespace();
// The inode of /proc/self/ns/pid.

ProcessIdentity processIdentity(pid_t pid);
// From /proc/PID/stat: ALIVE with its start time, GONE (absent or a zombie), or UNKNOWN
// (unreadable or malformed).

}  // namespace rea::helper
