// sampler-bench: what process observation costs (issue 4), in the machine's mode (exact where a
// capture cgroup and the proc connector are available) and with sampling forced
// (REA_FORCE_SAMPLED=1, the baseline's 50 ms passes and two-empty settlement rule):
//   1. settlement after the root exits, for `/bin/true`: the capture's own
//      `settlement.elapsed_ms` (time_bucket_ms 1, so unrounded) and the whole capture's wall time;
//   2. the CPU time (utime + stime from /proc/PID/stat, read every 2 ms until it exits) of the
//      capture's rea-sampler process while the target forks 1000 short processes, against the
//      CPU time (wait4 rusage, descendants included) of the same target run without rea; in
//      exact mode both with kernel-side exec observation (seccomp user notification, where the
//      machine has it) and with the previous /proc path (REA_EXEC_OBSERVATION=procfs), so the
//      cost of seeing every exec shows in one run (issue 17).
// Median of N runs.
//
// usage: sampler-bench [runs]   (rea and its helpers are found beside this binary)
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/support/bench-directory.h"
#include "bench/support/process-measure.h"
#include "helpers/common/clock.h"

namespace {

using Json = nlohmann::json;

const char FORK_LOOP[] = "for i in $(/usr/bin/seq 1000); do /bin/true; done";

double nowMs() {
  return double(rea::helper::monotonicNowNs()) / 1e6;
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The rea-sampler child of `rea` (by its comm), or 0 while there is none.
pid_t findSampler(pid_t rea) {
  std::string taskDir = "/proc/" + std::to_string(rea) + "/task";
  DIR* dir = opendir(taskDir.c_str());
  if (dir == nullptr) return 0;
  pid_t found = 0;
  while (struct dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::istringstream children(readText(taskDir + "/" + entry->d_name + "/children"));
    pid_t child;
    while (found == 0 && children >> child) {
      if (readText("/proc/" + std::to_string(child) + "/comm") == "rea-sampler\n") found = child;
    }
  }
  closedir(dir);
  return found;
}

// utime + stime of a process in ms, or -1 once it is gone. comm may hold spaces: the fields
// after the last ')' are state (3) ... utime (14), stime (15).
double cpuMs(pid_t pid) {
  std::string stat = readText("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int index = 3; fields >> field && index <= 15; ++index) {
    if (index == 14) utime = std::stoull(field);
    if (index == 15) stime = std::stoull(field);
  }
  return (utime + stime) * 1000.0 / sysconf(_SC_CLK_TCK);
}

enum class Mode { MACHINE, PROCFS, SAMPLED };

const char* modeLabel(Mode mode) {
  switch (mode) {
    case Mode::MACHINE:
      return "machine's mode";
    case Mode::PROCFS:
      return "exec from /proc (REA_EXEC_OBSERVATION=procfs)";
    case Mode::SAMPLED:
      return "forced sampling";
  }
  return "?";
}

struct CaptureRun {
  double wallMs = 0;
  double samplerCpuMs = 0;  // last reading before the sampler exited
  int exitStatus = 0;
  Json output;
};

CaptureRun runCapture(const std::string& rea, const std::string& scenario, Mode mode,
                      const std::string& outPath) {
  double start = nowMs();
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(out, 1);
    dup2(devnull, 2);
    if (mode == Mode::SAMPLED) {
      setenv("REA_FORCE_SAMPLED", "1", 1);
    } else {
      unsetenv("REA_FORCE_SAMPLED");
    }
    if (mode == Mode::PROCFS) {
      setenv("REA_EXEC_OBSERVATION", "procfs", 1);
    } else {
      unsetenv("REA_EXEC_OBSERVATION");
    }
    execl(rea.c_str(), rea.c_str(), "capture-process", scenario.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  CaptureRun run;
  pid_t sampler = 0;
  for (;;) {
    if (waitpid(pid, &run.exitStatus, WNOHANG) == pid) break;
    if (sampler == 0) sampler = findSampler(pid);
    if (sampler != 0) run.samplerCpuMs = std::max(run.samplerCpuMs, cpuMs(sampler));
    usleep(2000);
  }
  run.wallMs = nowMs() - start;
  run.output = Json::parse(readText(outPath), nullptr, false);
  unlink(outPath.c_str());
  return run;
}

struct Bare {
  double wallMs = 0;
  double cpuMs = 0;
};

Bare runBare(const std::string& script) {
  double start = nowMs();
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage usage = {};
  wait4(pid, &status, 0, &usage);
  auto ms = [](const struct timeval& t) { return t.tv_sec * 1000.0 + t.tv_usec / 1000.0; };
  return {nowMs() - start, ms(usage.ru_utime) + ms(usage.ru_stime)};
}

// "exact" / "sampled" as the capture's manifest says, or why there is no capture.
std::string modeOf(const CaptureRun& run) {
  if (!run.output.is_object() || !run.output.contains("normalized_result")) {
    return "failed (exit " + std::to_string(WEXITSTATUS(run.exitStatus)) + ")";
  }
  const Json& manifest = run.output["normalized_result"]["manifest"];
  std::string mode = manifest.value("process_observation", "?");
  if (manifest.contains("exec_observation")) {
    mode += ", exec " + manifest.value("exec_observation", "?");
  }
  return mode;
}

size_t countTrue(const CaptureRun& run) {
  size_t n = 0;
  if (!run.output.is_object() || !run.output.contains("normalized_result")) return 0;
  for (const auto& sample : run.output["normalized_result"]["process_samples"]) {
    if (sample.value("command", "") == "/bin/true") ++n;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  setenv("REA_PROCESS_CAPTURE_ENABLED", "true", 1);
  setenv("REA_PROCESS_EXECUTABLE_ROOTS_JSON", "[\"/bin\",\"/usr/bin\"]", 1);
  setenv("REA_PROCESS_WORKING_ROOTS_JSON", "[\"/tmp\"]", 1);
  setenv("REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "true", 1);
  std::string rea = rea::bench::selfDirectory() + "/rea";
  rea::bench::BenchDirectory files;
  std::string outPath = files.path("capture.json");
  auto writeScenario = [&](const std::string& name, const Json& scenario) {
    return files.write(name + ".json", scenario.dump());
  };
  Json unbucketed = {{"time_bucket_ms", 1}};
  std::string trueScenario = writeScenario("sampler-true", {{"approved", true},
                                                            {"executable", "/bin/true"},
                                                            {"working_directory", "/tmp"},
                                                            {"normalization", unbucketed}});
  std::string loopScenario = writeScenario("sampler-loop", {{"approved", true},
                                                            {"executable", "/bin/sh"},
                                                            {"arguments", {"-c", FORK_LOOP}},
                                                            {"working_directory", "/tmp"},
                                                            {"limits", {{"processes", 10000}}},
                                                            {"normalization", unbucketed}});
  bool failed = false;

  std::printf(
      "| `/bin/true`, settlement after root exit | mode | settlement.elapsed_ms "
      "| state | capture wall ms |\n");
  std::printf("|---|---|---|---|---|\n");
  for (Mode mode : {Mode::MACHINE, Mode::SAMPLED}) {
    std::vector<double> elapsed, wall;
    CaptureRun last;
    for (int i = 0; i < runs; ++i) {
      last = runCapture(rea, trueScenario, mode, outPath);
      wall.push_back(last.wallMs);
      if (last.output.contains("normalized_result")) {
        elapsed.push_back(last.output["normalized_result"]["settlement"]["elapsed_ms"]);
      }
    }
    failed = failed || elapsed.size() != static_cast<size_t>(runs);
    std::string state = last.output.contains("normalized_result")
                            ? last.output["normalized_result"]["settlement"].value("state", "?")
                            : "-";
    std::printf("| %s | %s | %.0f | %s | %.1f |\n", modeLabel(mode), modeOf(last).c_str(),
                median(elapsed), state.c_str(), median(wall));
  }

  std::printf(
      "\n| target forks 1000 `/bin/true` | mode | rea-sampler CPU ms | target alone CPU ms "
      "| sampler / target | `/bin/true` rows | capture wall ms | target alone wall ms "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::vector<double> bareCpu, bareWall;
  for (int i = 0; i < runs; ++i) {
    auto bare = runBare(FORK_LOOP);
    bareCpu.push_back(bare.cpuMs);
    bareWall.push_back(bare.wallMs);
  }
  for (Mode mode : {Mode::MACHINE, Mode::PROCFS, Mode::SAMPLED}) {
    std::vector<double> cpu, wall, rows;
    CaptureRun last;
    for (int i = 0; i < runs; ++i) {
      last = runCapture(rea, loopScenario, mode, outPath);
      cpu.push_back(last.samplerCpuMs);
      wall.push_back(last.wallMs);
      rows.push_back(static_cast<double>(countTrue(last)));
      failed = failed || !last.output.contains("normalized_result");
    }
    std::printf("| %s | %s | %.0f | %.0f | %.2f | %.0f | %.1f | %.1f |\n", modeLabel(mode),
                modeOf(last).c_str(), median(cpu), median(bareCpu),
                median(cpu) / std::max(1.0, median(bareCpu)), median(rows), median(wall),
                median(bareWall));
  }
  return failed ? 1 : 0;
}
