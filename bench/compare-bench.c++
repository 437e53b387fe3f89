// compare-bench: whole-process wall time and peak RSS of `rea compare-process-captures` on two
// capture Evidence files of about 20 MB each (issue "compare-process-captures"), against
// references measured in the same run on the same files: reading them (`cat`) and parsing
// them as JSON with Python's json module (the least any comparing tool must do).
//
// The captures are made by the real assembly code (supervisor/assembly/capture-assembly) from a
// synthetic run: 10 MB of densely coloured terminal output (the raw-output limit's
// maximum) in 4 KiB reads. The right capture has the same stream cut at other read boundaries,
// so the comparison has to concatenate both streams (A7) and finds no content divergence
// (checked on an untimed run before timing; the benchmark fails otherwise).
//
// Each command is one process (rea with its second reader thread), so its peak is the kernel's
// ru_maxrss and nothing samples /proc while it runs (process-measure.h, Sampling).
//
// usage: compare-bench [runs]
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/support/arguments.h"
#include "bench/support/bench-directory.h"
#include "bench/support/process-measure.h"
#include "evidence/evidence-record.h"
#include "evidence/scenario.h"
#include "evidence/validate.h"
#include "supervisor/assembly/capture-assembly.h"

namespace {

using namespace rea;

std::string syntheticOutput(size_t bytes) {
  // Colour changes every few characters, as in a coloured build log or `ls --color`: each ESC
  // becomes six bytes of JSON, so 10 MB of output makes a capture of about 20 MB.
  std::string out;
  out.reserve(bytes + 200);
  for (size_t line = 0; out.size() < bytes; ++line) {
    for (int segment = 0; segment < 6; ++segment) {
      out += "\x1b[3" + std::to_string((line + segment) % 8) + "m" +
             std::to_string((line * 7 + segment) % 100) + "\x1b[mx";
    }
    out += "\r\n";
  }
  out.resize(bytes);
  return out;
}

void writeCapture(const evidence::Scenario& scenario, const std::string& output, size_t firstChunk,
                  const std::string& path) {
  supervisor::CaptureRunResult run;
  run.tempRoot = "/tmp/rea-process-bench";
  run.runToken = "bench";
  run.t0RealMs = 1796205600000;
  run.t0MonoNs = 1000000000;
  run.pty.spawn = supervisor::PtySpawn{4242, run.t0MonoNs};
  size_t at = 0, size = firstChunk;
  uint64_t ns = run.t0MonoNs;
  while (at < output.size()) {
    size_t take = std::min(size, output.size() - at);
    run.pty.output.push_back({ns, output.substr(at, take)});
    at += take;
    ns += 1000000;  // one read per millisecond
    size = 4096;
  }
  supervisor::PtyExit exit;
  exit.atNs = ns;
  exit.code = 0;
  run.pty.exit = exit;
  run.pty.streamDone = true;
  run.settlement =
      supervisor::SamplerSettlement{supervisor::SamplerSettlement::State::QUIESCED, 0, {}};
  // Both snapshots of a run without filesystem roots: without them the capture would be
  // truncated (missing checkpoints) and the comparison would short-circuit instead of comparing.
  run.filesystem.checkpoints = {
      supervisor::CheckpointRecord{"before", 0, {}, false, false},
      supervisor::CheckpointRecord{"after_settlement", ns, {}, false, false}};
  evidence::Capture capture =
      supervisor::assembleCapture({scenario, run, std::string(64, 'a'), run.t0RealMs + 20000});
  auto issues = evidence::validateCapture(capture);
  if (!issues.empty()) {
    std::fprintf(stderr, "synthetic capture is invalid: %s\n",
                 evidence::formatIssues(issues).c_str());
    std::exit(1);
  }
  evidence::Json record = evidence::buildCaptureEvidence(
      capture,
      evidence::processEnvironment(capture.manifest.platform, capture.manifest.architecture));
  std::ofstream(path) << record.dump();
}

// The figure is only meaningful for the comparison it claims: the two captures hold the same
// content cut at different read boundaries, so the result must report no content divergence
// (every dimension unchanged or, through a residual, unknown; never truncated, which would
// compare nothing; nothing found). Returns what is wrong, or "".
std::string contentDivergence(const std::string& rea, const std::string& left,
                              const std::string& right) {
  std::string command = rea + " compare-process-captures '" + left + "' '" + right + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "cannot run " + command;
  std::string text;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    text.append(buffer, n);
  int status = pclose(pipe);
  if (status != 0)
    return "rea compare-process-captures failed (status " + std::to_string(status) + ")";
  auto comparison = evidence::Json::parse(text, nullptr, false)["normalized_result"];
  if (!comparison.is_object()) return "no comparison object in: " + text.substr(0, 200);
  for (const char* dimension :
       {"terminal", "interaction", "exit", "filesystem", "protocol", "process", "shim"}) {
    const auto& status = comparison[dimension];
    if (status != "unchanged" && status != "unknown") {
      return std::string(dimension) + " is " + status.get<std::string>() + ": " +
             comparison.dump().substr(0, 400);
    }
  }
  if (comparison["first_divergence"]["status"] == "found") {
    return "a divergence was found: " + comparison["first_divergence"].dump().substr(0, 400);
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "compare-bench [runs]";
  auto arguments = rea::bench::parseArguments(argc, argv, usage);
  rea::bench::rejectFlags(arguments, usage);
  int runs = arguments.runs;
  auto parsed = evidence::parseScenario(evidence::Json::parse(
      R"({"approved":true,"executable":"/bin/ls","arguments":["-l","--color=always"],)"
      R"("working_directory":"/tmp","limits":{"output_bytes":10000000,"frames":100000}})"));
  if (!parsed.scenario) {
    std::fprintf(stderr, "bench scenario rejected: %s\n",
                 evidence::formatIssues(parsed.issues).c_str());
    return 1;
  }
  rea::bench::BenchDirectory files;
  std::string left = files.path("left.json");
  std::string right = files.path("right.json");
  // The captures are made in a child process: a program started from this one reports at least
  // this one's peak RSS as its own (posix_spawn shares our memory until the exec, whose high-water
  // mark the kernel carries over), and making them takes ~80 MB, which every row showed.
  pid_t maker = fork();
  if (maker == 0) {
    std::string output = syntheticOutput(10000000);
    writeCapture(*parsed.scenario, output, 4096, left);
    writeCapture(*parsed.scenario, output, 1500, right);
    _exit(0);
  }
  int made = -1;
  if (maker < 0 || waitpid(maker, &made, 0) != maker || made != 0) {
    std::fprintf(stderr, "making the captures failed\n");
    return 1;
  }
  struct stat leftStat, rightStat;
  if (stat(left.c_str(), &leftStat) != 0 || stat(right.c_str(), &rightStat) != 0) return 1;
  size_t leftBytes = static_cast<size_t>(leftStat.st_size);
  size_t rightBytes = static_cast<size_t>(rightStat.st_size);

  std::string rea = rea::bench::selfDirectory() + "/rea";
  std::string divergence = contentDivergence(rea, left, right);
  if (!divergence.empty()) {
    std::fprintf(stderr, "the timed comparison is not the one claimed: %s\n", divergence.c_str());
    return 1;
  }
  // Each command is one process: its peak is the kernel's, and no sampler takes the second core
  // from rea's second reader thread.
  using rea::bench::Sampling;
  auto compare = rea::bench::measureMedian({rea, "compare-process-captures", left, right}, runs,
                                           Sampling::KERNEL_PEAK_ONLY);
  auto cat = rea::bench::measureMedian({"/bin/cat", left, right}, runs, Sampling::KERNEL_PEAK_ONLY);
  auto python = rea::bench::measureMedian(
      {"/usr/bin/python3", "-c", "import json,sys\nfor f in sys.argv[1:]: json.load(open(f))", left,
       right},
      runs, Sampling::KERNEL_PEAK_ONLY);
  if (compare.exitStatus != 0) {
    std::fprintf(stderr, "rea compare-process-captures failed (status %d)\n", compare.exitStatus);
    return 1;
  }
  std::printf("captures: %.1f MB and %.1f MB of Evidence JSON, 10 MB of raw output each\n\n",
              leftBytes / 1e6, rightBytes / 1e6);
  std::printf("| command | ms | peak RSS | ms ratio to rea |\n|---|---|---|---|\n");
  std::printf("| rea compare-process-captures | %.0f | %.1f MB | 1.00 |\n", compare.ms,
              compare.peakKb / 1024.0);
  std::printf("| python3 json.load both | %.0f | %.1f MB | %.2f |\n", python.ms,
              python.peakKb / 1024.0, python.ms / compare.ms);
  std::printf("| cat both > /dev/null | %.0f | %.1f MB | %.2f |\n", cat.ms, cat.peakKb / 1024.0,
              cat.ms / compare.ms);
  return 0;
}
