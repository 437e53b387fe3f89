#pragma once
// The child processes of `rea capture-batch` (issue 21): each scenario is captured by its own
// `rea capture-process` process (this same binary), at most `jobs` at a time, so a crash or a
// kill of one capture never takes the batch or another capture with it, and each capture keeps
// its own cleanup (temp root, cgroup, helpers) exactly as when run alone.
//
// Signals: while runCaptureTasks() runs, SIGINT, SIGTERM and SIGHUP to the batch are forwarded
// as SIGTERM to every running capture (which then cancels and cleans up, as capture-process
// does), no further capture starts, and it returns once every child has been reaped. Each child
// is started with PR_SET_PDEATHSIG = SIGTERM, so a batch killed with SIGKILL still has its
// captures cancel and clean up rather than outlive it. Children start with an empty signal mask
// and stdin from /dev/null.
//
// Errors: throws (KJ_SYSCALL) when a child cannot be started at all (fork, signalfd); a capture
// that fails is an outcome, reported through `onEnd`.

#include <functional>
#include <string>
#include <vector>

namespace rea::supervisor {

struct CaptureTask {
  std::string scenarioFile;  // passed to `rea capture-process`
  std::string stdoutFile;    // created (truncated) for the child's stdout
  std::string stderrFile;    // created (truncated) for the child's stderr
};

struct CaptureTaskEvents {
  std::function<void(size_t task)> onStart;
  std::function<void(size_t task, int waitStatus, bool stopping)> onEnd;
  // Called in the batch process, one at a time, as children start and are reaped; `waitStatus`
  // is as from waitpid(2); `stopping` says the batch was told to stop before the child ended
  // (it was sent SIGTERM by us, so its end is no result of its scenario).
};

bool runCaptureTasks(const std::vector<CaptureTask>& tasks, size_t jobs,
                     const CaptureTaskEvents& events);
// Runs every task (in order, `jobs` >= 1 at a time) unless a termination signal arrives. Returns
// true when every task ran to its end; false when a signal stopped the batch (tasks that never
// started get no event; those running were stopped and got onEnd). The signals are blocked in
// this process from the first call on, so one arriving between two batches is seen by the next.

void blockBatchSignals();
// Blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD in this process: call first thing, so a signal
// that arrives while the batch reads its scenarios waits for runCaptureTasks(), which then
// starts no capture and returns false.

size_t availableCores();
// The CPUs this process may run on (sched_getaffinity), at least 1.

}  // namespace rea::supervisor
