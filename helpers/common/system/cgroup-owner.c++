#include "helpers/common/system/cgroup-owner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "helpers/common/system/proc-stat.h"

namespace rea::helper {
namespace {

std::optional<uint64_t> parseDecimal(const std::string& text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

bool isLowerHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

}  // namespace

std::string formatOwnerRecord(const CgroupOwner& owner) {
  return std::to_string(owner.pid) + " " + std::to_string(owner.startTime) + " " +
         std::to_string(owner.pidNamespace);
}

std::optional<CgroupOwner> parseOwnerRecord(const std::string& text) {
  // Exactly three single-space-separated decimal fields: the writer is ours, anything else is a
  // record we do not understand (and so judge as none).
  std::vector<std::string> fields;
  std::string field;
  for (char c : text) {
    if (c == ' ') {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  if (fields.size() != 3) return std::nullopt;
  auto pid = parseDecimal(fields[0]);
  auto start = parseDecimal(fields[1]);
  auto ns = parseDecimal(fields[2]);
  if (!pid || !start || !ns || *pid == 0 || *pid > 0x7fffffff) return std::nullopt;
  return CgroupOwner{static_cast<pid_t>(*pid), *start, *ns};
}

bool isCaptureCgroupName(const std::string& name) {
  constexpr size_t PREFIX = 4;  // "rea-"
  if (name.size() != PREFIX + 36 || name.compare(0, PREFIX, "rea-") != 0) return false;
  for (size_t i = 0; i < 36; ++i) {
    char c = name[PREFIX + i];
    bool hyphen = i == 8 || i == 13 || i == 18 || i == 23;
    if (hyphen ? c != '-' : !isLowerHex(c)) return false;
  }
  return true;
}

CgroupVerdict judgeCaptureCgroup(const CgroupFacts& facts, uint64_t ourPidNamespace,
                                 const std::function<ProcessIdentity(pid_t)>& identityOf) {
  if (facts.ageSeconds < CGROUP_YOUNG_SECONDS) {
    return {false, "younger than " + std::to_string(CGROUP_YOUNG_SECONDS) +
                       " s: may be a capture that is just starting"};
  }
  std::optional<CgroupOwner> owner;
  if (facts.ownerRecord) owner = parseOwnerRecord(*facts.ownerRecord);
  if (!owner) {
    if (facts.ageSeconds < CGROUP_UNRECORDED_SECONDS) {
      return {false, "no owner record, younger than a minute: not judged yet"};
    }
    return {true, "no owner record and older than a minute"};
  }
  std::string who = "owner pid " + std::to_string(owner->pid);
  if (owner->pidNamespace != ourPidNamespace) {
    return {false, who + " lives in another PID namespace: not judged from here"};
  }
  auto identity = identityOf(owner->pid);
  switch (identity.state) {
    case ProcessIdentity::GONE:
      return {true, who + " has exited"};
    case ProcessIdentity::UNKNOWN:
      return {false, who + " cannot be inspected: treated as alive"};
    case ProcessIdentity::ALIVE:
      if (identity.startTime != owner->startTime) {
        return {true, who + " has exited (the pid now belongs to another process)"};
      }
      return {false, who + " is alive"};
  }
  return {false, "unreachable"};
}

std::optional<uint64_t> ownPidNamespace() {
  struct stat st;
  if (stat("/proc/self/ns/pid", &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_ino);
}

ProcessIdentity processIdentity(pid_t pid) {
  auto read = readProcFile("/proc/" + std::to_string(pid) + "/stat");
  if (read.status == ProcRead::GONE) return {ProcessIdentity::GONE, 0};
  if (read.status != ProcRead::OK) return {ProcessIdentity::UNKNOWN, 0};
  KJ_IF_MAYBE (stat, parseStat(pid, read.text)) {
    if (stat->isZombie()) return {ProcessIdentity::GONE, 0};
    return {ProcessIdentity::ALIVE, stat->startTime};
  }
  return {ProcessIdentity::UNKNOWN, 0};
}

std::optional<CgroupOwner> ownerRecordForParent() {
  pid_t parent = getppid();
  pid_t owner = parent > 0 ? parent : getpid();
  auto ns = ownPidNamespace();
  auto identity = processIdentity(owner);
  if (!ns || identity.state != ProcessIdentity::ALIVE) return std::nullopt;
  return CgroupOwner{owner, identity.startTime, *ns};
}

}  // namespace rea::helper
