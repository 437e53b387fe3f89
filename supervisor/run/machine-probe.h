#pragma once
// What this machine lets a capture do (used by `rea doctor` and to decide, before a capture,
// which observation modes are available). Each probe really exercises the facility (opens a
// PTY, creates and removes a cgroup, subscribes to the proc connector, unshares a network
// namespace in a throw-away child, sets up an io_uring, loads a seccomp filter in a throw-away
// child) and reports a sentence saying what works or why not. Probes never leave anything
// behind.
//
// Errors: none thrown; every failure is a probe result.

#include <optional>
#include <string>
#include <vector>

namespace rea::supervisor {

struct ProbeResult {
  std::string name;  // "pty", "proc", "cgroup2", "pids_bound", "proc_connector", "netns",
                     // "io_uring", "seccomp", "exec_notify"
  bool available;
  std::string detail;  // where / how, or why not
  std::string effect;  // what rea does about it
  bool required;       // captures cannot run without it
};

std::vector<ProbeResult> probeMachine();

}  // namespace rea::supervisor
