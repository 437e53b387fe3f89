#pragma once
// Reading one process's /proc files: stat (state, parent, group, session, start time), cmdline
// (the sample's command), the children lists of its threads, and the raw file reader the other
// modules share. These are untrusted bytes written by the target (its argv, its comm): parsing
// never trusts a length or a field count.
//
// Errors: a process that vanished (ENOENT, ESRCH) or is unreadable (EACCES, EPERM) is a result
// (`ProcRead::GONE` / `DENIED`, or an empty Maybe); any other errno throws kj::Exception.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <kj/common.h>

namespace rea::helper {

struct ProcRead {
  enum Status { OK, GONE, DENIED };
  Status status;
  std::string text;  // the file's bytes when OK
};

ProcRead readProcFile(const std::string& path);
// Reads a whole file under /proc. ENOENT and ESRCH give GONE, EACCES and EPERM give DENIED.

struct ProcStat {
  pid_t pid;
  char state;          // 'R', 'S', 'Z', ...
  pid_t ppid;          // >= 0
  pid_t pgid;          // > 0
  pid_t sid;           // > 0
  uint64_t startTime;  // field 22, clock ticks since boot: with pid, the identity of a process
  std::string comm;    // the text between the first '(' and the last ')'

  bool isZombie() const { return state == 'Z' || state == 'X' || state == 'x'; }
};

kj::Maybe<ProcStat> parseStat(pid_t pid, const std::string& text);
// Parses /proc/PID/stat as SPEC B §6.8 does: the fields after the *last* ')' are state, ppid,
// pgrp, session, ..., starttime (field 22). Requires ppid >= 0, pgrp > 0, session > 0 and a
// numeric start time; anything else is an empty Maybe (a malformed line is not a process).

kj::Maybe<ProcStat> readStat(pid_t pid);
// readProcFile + parseStat; empty when the process is gone, unreadable or malformed.

std::string commandFromCmdline(const std::string& cmdline);
// NULs become spaces and surrounding whitespace is trimmed (B §6.8): "" for kernel threads and
// zombies, whose cmdline is empty.

kj::Maybe<std::string> readCommand(pid_t pid);
// commandFromCmdline of /proc/PID/cmdline; empty Maybe when the process is gone or unreadable.

kj::Maybe<std::vector<pid_t>> readChildren(pid_t pid);
// The union of /proc/PID/task/TID/children over every thread, sorted and without duplicates.
// Empty Maybe when no task's children file could be read (the process is gone, or the kernel
// lacks CONFIG_PROC_CHILDREN).

class ProcReader {
 public:
  virtual kj::Maybe<ProcStat> stat(pid_t pid) { return readStat(pid); }
  virtual kj::Maybe<std::string> command(pid_t pid) { return readCommand(pid); }
};
// The per-process reads the exact-mode tracker makes; tests substitute synthetic processes.

ProcReader& liveProcReader();
// Reads the real /proc.

std::vector<pid_t> listPids();
// Every numeric entry of /proc, ascending. Throws when /proc cannot be listed.

}  // namespace rea::helper
