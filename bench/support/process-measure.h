#pragma once
// What every benchmark measures about a whole command: wall time from fork to exit and the peak
// of the summed RSS of the process and all its descendants (rea plus its helpers plus the
// target), sampled every millisecond from /proc and never below the kernel's peak of the largest
// single process (wait4's ru_maxrss). Median of N runs, and the largest peak of the N.
//
// Errors: a command that cannot be started measures as exit 127; nothing throws.

#include <string>
#include <vector>

namespace rea::bench {

struct Measurement {
  double ms = 0;
  long peakKb = 0;
  int exitStatus = 0;    // of the last run (waitpid status)
  long worstPeakKb = 0;  // measureMedian: the largest peakKb of the runs
  // Who held the sampled peak, by process name ("rea 17.2, rea-pty 6.1, ..." MB, largest first;
  // measureMedian: of the run with the largest peak). Empty when the peak was the kernel's
  // single-process high-water mark rather than a sample.
  std::string peakBreakdown;
};

enum class Sampling { TREE, KERNEL_PEAK_ONLY };
// TREE samples the tree's summed RSS every millisecond (a capture: rea, its helpers and the
// target). KERNEL_PEAK_ONLY waits without sampling and takes wait4's ru_maxrss, exact for a
// command that is one process (threads included): the sampler's walks of /proc take a core,
// which a command using both cores of a two-core machine (compare-process-captures) would miss.

Measurement measureOnce(const std::vector<std::string>& argv, Sampling sampling = Sampling::TREE);
// stdin, stdout and stderr go to /dev/null.

Measurement measureMedian(const std::vector<std::string>& argv, int runs,
                          Sampling sampling = Sampling::TREE);

long treeRssKb(pid_t root, std::string* breakdown = nullptr);
// Sum of VmRSS over `root` and every descendant now; `breakdown`, when given, gets the sum per
// process name (as measureOnce's peakBreakdown).

std::string selfDirectory();
// The directory of the running benchmark binary (rea and its helpers are beside it).

}  // namespace rea::bench
