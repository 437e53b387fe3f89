// capture-bench: whole-process wall time and peak total RSS (the process and all its
// descendants, summed at each sample) of capturing a command with `rea capture-process`,
// against `script -q -c CMD /dev/null` measured in the same run. Median of N runs each: the
// times from unsampled runs, the memory from sampled ones (process-measure.h, Sampling).
//
// usage: capture-bench [runs] [row] [--by-process]   (rea and its helpers are found beside this
// binary; `row` measures only the rows whose name contains it, e.g. "true"; --by-process prints,
// under the table, who held the largest sampled peak of each row: RSS per process name)
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/support/bench-directory.h"
#include "bench/support/process-measure.h"

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  setenv("REA_PROCESS_CAPTURE_ENABLED", "true", 1);
  setenv("REA_PROCESS_EXECUTABLE_ROOTS_JSON", "[\"/bin\",\"/usr/bin\"]", 1);
  setenv("REA_PROCESS_WORKING_ROOTS_JSON", "[\"/tmp\"]", 1);
  setenv("REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "true", 1);
  std::string rea = rea::bench::selfDirectory() + "/rea";
  rea::bench::BenchDirectory files;
  auto writeScenario = [&](const std::string& name, const std::string& body) {
    return files.write(name + ".json", body);
  };
  std::string trueScenario = writeScenario(
      "true", R"({"approved":true,"executable":"/bin/true","working_directory":"/tmp"})");
  std::string seqScenario = writeScenario(
      "seq", R"({"approved":true,"executable":"/usr/bin/seq","arguments":["1","1000000"],)"
             R"("working_directory":"/tmp","limits":{"output_bytes":10000000,"frames":100000}})");
  // Issue "Terminal renderer": 10 MB of seq output (9,992,904 bytes, just under the largest
  // output_bytes limit) within 2x script's time.
  std::string seq10Scenario = writeScenario(
      "seq10", R"({"approved":true,"executable":"/usr/bin/seq","arguments":["1","1388000"],)"
               R"("working_directory":"/tmp","limits":{"output_bytes":10000000,"frames":100000}})");

  struct Row {
    const char* name;
    std::vector<std::string> rea;
    std::vector<std::string> reference;
  };
  std::vector<Row> rows = {
      {"/bin/true",
       {rea, "capture-process", trueScenario},
       {"/usr/bin/script", "-q", "-c", "/bin/true", "/dev/null"}},
      {"seq 1 1000000",
       {rea, "capture-process", seqScenario},
       {"/usr/bin/script", "-q", "-c", "/usr/bin/seq 1 1000000", "/dev/null"}},
      {"seq 1 1388000 (10 MB)",
       {rea, "capture-process", seq10Scenario},
       {"/usr/bin/script", "-q", "-c", "/usr/bin/seq 1 1388000", "/dev/null"}},
  };
  std::printf(
      "| capture of | rea ms | script ms | ratio | rea peak RSS (all processes; max of the runs) "
      "| script peak RSS |\n");
  std::printf("|---|---|---|---|---|---|\n");
  std::string only;
  bool byProcess = false;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--by-process") {
      byProcess = true;
    } else {
      only = argv[i];
    }
  }
  std::vector<std::string> breakdowns;
  for (const auto& row : rows) {
    if (std::string(row.name).find(only) == std::string::npos) continue;
    // Times from runs of their own, unsampled: the sampler's walks of /proc every millisecond
    // take a core, which rea's helpers (two processes and a drain thread beside the target) use
    // more than script does. Then the memory, from sampled runs.
    using rea::bench::Sampling;
    double rMs = rea::bench::measureMedian(row.rea, runs, Sampling::KERNEL_PEAK_ONLY).ms;
    double sMs = rea::bench::measureMedian(row.reference, runs, Sampling::KERNEL_PEAK_ONLY).ms;
    auto r = rea::bench::measureMedian(row.rea, runs);
    auto s = rea::bench::measureMedian(row.reference, runs);
    // The largest peak too: rea holds the Evidence it builds, whose size follows the number of
    // chunks the PTY's reads happened to return (one rendered frame each, B §6.11).
    std::printf("| %s | %.1f | %.1f | %.2f | %.1f MB (max %.1f) | %.1f MB |\n", row.name, rMs, sMs,
                rMs / sMs, r.peakKb / 1024.0, r.worstPeakKb / 1024.0, s.peakKb / 1024.0);
    breakdowns.push_back(
        std::string(row.name) + ": " +
        (r.peakBreakdown.empty() ? "(the kernel's single-process peak)" : r.peakBreakdown + " MB"));
  }
  if (byProcess) {
    std::printf("\nAt the largest sampled peak of the runs, RSS by process name:\n\n");
    for (const auto& line : breakdowns)
      std::printf("- %s\n", line.c_str());
  }
  return 0;
}
