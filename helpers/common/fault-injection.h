#pragma once
// Test-only fault injection (issue "Reliability"): makes one helper fail on purpose, in one of
// the ways a real helper can fail, at one moment of its job, so the tests can prove that rea
// survives it, reports it and leaves nothing behind. Off unless the supervisor's environment
// has REA_TEST_FAULT (passed on to helpers like REA_SECCOMP_DEBUG); never set in production.
//
//   REA_TEST_FAULT=<helper>:<fault>:<moment>[@<tag>]   e.g. pty:kill:first-batch,
//   sampler:stall:settle
//
// The tag is ignored here: a test sets one of its own to find its helpers by their environment
// when the other build tree's suite runs the same plan at the same time.
// faults:  kill (SIGKILL itself), abort (SIGABRT), exit0 (exits 0 as if done), stall (stops
//          answering: its event loop blocks forever), malformed (its next message breaks the
//          schema's rules; what that means is the helper's server's choice)
// moments: start (while answering the supervisor's first call), first-batch (right after its
//          first event batch was delivered), mid-run (REA_TEST_FAULT_DELAY_MS, default 500, after
//          it began serving the run: its first call, or the sampler's job start), settle (when the
//          capture is settling: the root's exit for pty, the settle call for sampler, the `final`
//          snapshot request for fswatch; shim and replay get no such call and never reach it), stop
//          (while answering the supervisor's last call); where each helper reaches each moment:
//          tests/README.md
//
// Built only where tests run: the CMake option REA_FAULT_INJECTION (ON in the test trees, OFF in
// scripts/build.sh's build-release tree that scripts/demo.sh and installs use) defines the macro
// of the same name. Without it every hook below is an empty inline function (takeMalformed() a
// constant false), so the servers' hook calls compile to nothing and the helpers neither read
// REA_TEST_FAULT nor contain a fault.
//
// Errors: a malformed REA_TEST_FAULT is ignored with one line on stderr (tests notice: nothing
// fails). A fault never throws; the process dies or blocks as asked.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace rea::helper {

enum class Fault { KILL, ABORT, EXIT0, STALL, MALFORMED };
enum class FaultMoment { START, FIRST_BATCH, MID_RUN, SETTLE, STOP };

struct FaultPlan {
  std::string helper;
  Fault fault = Fault::KILL;
  FaultMoment moment = FaultMoment::START;
  uint64_t delayMs = 500;  // MID_RUN only
};

#ifdef REA_FAULT_INJECTION

std::optional<FaultPlan> parseFaultPlan(const std::string& text);
// Pure: "pty:kill:start" (or "pty:kill:start@tag") → plan; nullopt for anything else.

void armFaults(const char* helperName);
// Reads REA_TEST_FAULT (and REA_TEST_FAULT_DELAY_MS) once, at start, and keeps the plan when it
// names this helper.

std::optional<uint64_t> midRunFaultDelayMs();
// The delay after which helperMain must call faultPoint(MID_RUN), when that is the armed moment.
// It counts from the run's start (see whenRunStarted), not from the helper's exec: a helper
// spawned early may wait long for its first call, and "mid-run" means while it serves the run.

void whenRunStarted(std::function<void()> callback);
// Calls `callback` once, when the helper begins serving the run: from the first
// faultPoint(START), before that moment's own fault, or from runStarted() for a helper that
// called runStartsLater().

void runStartsLater();
// For a helper whose first call only prepares (the sampler: its job starts once the target is
// launched, which on a loaded machine may be long after): the run starts at runStarted().
// Otherwise a mid-run fault could strike before the capture has begun, i.e. at its start.

void runStarted();
// The run start of a helper that called runStartsLater().

void faultPoint(FaultMoment moment);
// Performs the armed fault if `moment` is its moment: kill/abort/exit0/stall do not return;
// malformed marks the next message (see takeMalformed()) and returns.

bool takeMalformed();
// True once, after a malformed fault's moment was reached: the caller corrupts the message it
// is about to send.

#else  // release builds: no fault injection (see above)

inline void armFaults(const char*) {}
inline std::optional<uint64_t> midRunFaultDelayMs() {
  return std::nullopt;
}
inline void whenRunStarted(std::function<void()>) {}
inline void runStartsLater() {}
inline void runStarted() {}
inline void faultPoint(FaultMoment) {}
inline constexpr bool takeMalformed() {
  return false;
}

#endif  // REA_FAULT_INJECTION

}  // namespace rea::helper
