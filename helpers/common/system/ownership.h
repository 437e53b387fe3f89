#pragma once
// Ownership verification (SPEC B §6.7.1 with the fixes of B §12 and A8): a process belongs to
// the capture only while its /proc/PID/environ carries REA_PROCESS_RUN_ID=<run token>. Nothing
// is ever signalled on a pid alone: `inspectProcess` opens a pidfd *before* reading the
// environment and proves afterwards that the same process is still alive, so a pid recycled
// between listing and signalling can never receive a signal meant for the capture.
// Owns: the pidfds of inspected processes (closed with the OwnedProcess).
//
// Errors: races are results (GONE); throws kj::Exception only on an unexpected errno.

#include <sys/types.h>

#include <string>
#include <vector>

#include <kj/common.h>
#include <kj/io.h>

namespace rea::helper {

extern const char RUN_TOKEN_VARIABLE[];  // "REA_PROCESS_RUN_ID"

enum class Ownership {
  OWNED,            // the environment carries the run token
  TOKEN_MISSING,    // no REA_PROCESS_RUN_ID at all (e.g. `env -i`): never signalled
  TOKEN_DIFFERENT,  // another capture's or a forged token: never signalled
  UNREADABLE,       // the environment cannot be read (EACCES/EPERM): never signalled
  GONE,             // exited (or is a zombie) before it could be checked: not a failure
};

const char* ownershipName(Ownership ownership);
// "owned", "token_missing", "token_different", "unreadable", "gone".

Ownership ownershipOfEnviron(const std::string& environ, const std::string& runToken);
// Parses a NUL-separated environment as the baseline does (entries without '=' or starting with
// '=' are ignored; the value is the text after the first '='; a later entry overrides an
// earlier one) and compares REA_PROCESS_RUN_ID with the token. Never returns GONE/UNREADABLE.

Ownership checkRunToken(pid_t pid, const std::string& runToken);
// Reads /proc/PID/environ. An empty environment of a zombie or vanished process is GONE; of a
// live process it is TOKEN_MISSING only if it stays empty for ~30 ms (a process inside execve()
// or exit shows an empty one for a moment). Does not guard against PID reuse: see
// inspectProcess.

class InspectedProcess {
 public:
  InspectedProcess(pid_t pid, Ownership ownership, kj::Maybe<kj::AutoCloseFd> pidfd)
      : pid(pid), ownership(ownership), pidfd(kj::mv(pidfd)) {}
  KJ_DISALLOW_COPY(InspectedProcess);
  InspectedProcess(InspectedProcess&&) = default;
  InspectedProcess& operator=(InspectedProcess&&) = default;

  pid_t getPid() const { return pid; }
  Ownership getOwnership() const { return ownership; }

  bool kill();
  // SIGKILLs the process through its pidfd. Only allowed when OWNED (KJ_REQUIRE). Returns true
  // when the signal was delivered, false when the process had already exited (ESRCH). A recycled
  // pid cannot be hit: the pidfd names the process that was checked.

  bool isAlive() const;
  // A null signal through the pidfd: the inspected process has not exited yet. False when GONE.

 private:
  pid_t pid;
  Ownership ownership;
  kj::Maybe<kj::AutoCloseFd> pidfd;  // null when GONE
};

InspectedProcess inspectProcess(pid_t pid, const std::string& runToken);
// pidfd_open(pid), then checkRunToken, then a null signal through the pidfd proves the checked
// process is the one the pidfd names and still alive; otherwise GONE.

std::vector<pid_t> findTokenCarriers(const std::string& runToken);
// Every live, non-zombie process on the machine whose environment carries the run token: what
// must not survive a capture (and what a test asserts is gone). Reads every /proc/PID/environ;
// unreadable ones are skipped.

}  // namespace rea::helper
