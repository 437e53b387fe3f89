#pragma once
// Sampled-mode observation (SPEC B §6.8, Linux path, with the fixes of B §12): one `pass()`
// walks the tree under the root breadth-first through /proc/PID/task/TID/children and offers one
// row per live process to the SampleRecorder. For each candidate it reads stat (before),
// cmdline, children, stat (after), and drops it when stat is missing, its ppid is not the
// expected parent, the two stats disagree, or its start time differs from the one remembered
// for that pid (PID reuse). At most limits.processes + 1 rows per pass; each pid visited once.
// Passes do nothing until the root is proven initialised (57938a84): pid = pgid = sid, the same
// start time on two reads, and the run token visible in its environment — so the launcher's own
// command line never appears. A zombie row (empty command) records "exited".
// Owns: the start-time identities. Reads /proc; never signals.
//
// Errors: a vanished or unreadable process just drops that pid; any other failure of a pass
// marks the samples partial (the pass is abandoned, the next one runs normally).

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "helpers/sampler/sample-recorder.h"

namespace rea::helper {

class ProcessWalker {
 public:
  ProcessWalker(pid_t rootPid, std::string runToken, uint32_t maxProcesses,
                SampleRecorder& recorder);

  void pass(uint64_t atNs);
  // One sampling pass stamped `atNs` (its start). Cheap no-op while the root is not initialised.

  bool rootInitialised() const { return initialised; }

 private:
  pid_t rootPid;
  std::string runToken;
  uint32_t maxProcesses;
  SampleRecorder& recorder;
  std::unordered_map<pid_t, uint64_t> startTimes;
  bool initialised = false;
  uint64_t rootStartTime = 0;
  bool rootStartTimeKnown = false;

  bool checkRootInitialised();
  void walk(uint64_t atNs);
};

}  // namespace rea::helper
