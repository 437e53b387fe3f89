// capture-bench: whole-process wall time and peak total RSS (the process and all its
// descendants, summed at each sample) of capturing a command with `rea capture-process`,
// against `script -q -c CMD /dev/null` measured in the same run. Median of N runs.
//
// usage: capture-bench [runs]   (rea and its helpers are found beside this binary)
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

double nowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

// Sum of VmRSS (kB) over `root` and every descendant, read from /proc.
long treeRssKb(pid_t root) {
  std::map<pid_t, pid_t> parent;
  std::map<pid_t, long> rss;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return 0;
  while (struct dirent* entry = readdir(dir)) {
    char* end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    long ppid = -1, kb = 0;
    while (std::getline(status, line)) {
      if (line.rfind("PPid:", 0) == 0) ppid = std::stol(line.substr(5));
      if (line.rfind("VmRSS:", 0) == 0) kb = std::stol(line.substr(6));
    }
    parent[pid] = static_cast<pid_t>(ppid);
    rss[pid] = kb;
  }
  closedir(dir);
  long total = 0;
  for (const auto& [pid, kb] : rss) {
    for (pid_t p = pid; p > 1; p = parent.count(p) ? parent[p] : 0) {
      if (p == root) {
        total += kb;
        break;
      }
    }
  }
  return total;
}

struct Sample {
  double ms;
  long peakKb;
};

Sample runOnce(const std::vector<std::string>& argv) {
  double start = nowMs();
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  long peak = 0;
  int status;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    peak = std::max(peak, treeRssKb(pid));
    usleep(1000);
  }
  return {nowMs() - start, peak};
}

Sample median(const std::vector<std::string>& argv, int runs) {
  std::vector<double> ms;
  std::vector<long> kb;
  for (int i = 0; i < runs; ++i) {
    auto s = runOnce(argv);
    ms.push_back(s.ms);
    kb.push_back(s.peakKb);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(kb.begin(), kb.end());
  return {ms[ms.size() / 2], kb[kb.size() / 2]};
}

std::string selfDir() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  buffer[n > 0 ? n : 0] = '\0';
  std::string path = buffer;
  return path.substr(0, path.rfind('/'));
}

std::string writeScenario(const std::string& name, const std::string& body) {
  std::string path = "/tmp/rea-bench-" + name + ".json";
  std::ofstream(path) << body;
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  setenv("REA_PROCESS_CAPTURE_ENABLED", "true", 1);
  setenv("REA_PROCESS_EXECUTABLE_ROOTS_JSON", "[\"/bin\",\"/usr/bin\"]", 1);
  setenv("REA_PROCESS_WORKING_ROOTS_JSON", "[\"/tmp\"]", 1);
  setenv("REA_PROCESS_ALLOW_EXTERNAL_NETWORK", "true", 1);
  std::string rea = selfDir() + "/rea";
  std::string trueScenario = writeScenario(
      "true", R"({"approved":true,"executable":"/bin/true","working_directory":"/tmp"})");
  std::string seqScenario = writeScenario(
      "seq", R"({"approved":true,"executable":"/usr/bin/seq","arguments":["1","1000000"],)"
             R"("working_directory":"/tmp","limits":{"output_bytes":10000000,"frames":100000}})");

  struct Row {
    const char* name;
    std::vector<std::string> rea;
    std::vector<std::string> reference;
  };
  std::vector<Row> rows = {
      {"/bin/true", {rea, "capture-process", trueScenario},
       {"/usr/bin/script", "-q", "-c", "/bin/true", "/dev/null"}},
      {"seq 1 1000000", {rea, "capture-process", seqScenario},
       {"/usr/bin/script", "-q", "-c", "/usr/bin/seq 1 1000000", "/dev/null"}},
  };
  std::printf("| capture of | rea ms | script ms | ratio | rea peak RSS (all processes) | script peak RSS |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const auto& row : rows) {
    auto r = median(row.rea, runs);
    auto s = median(row.reference, runs);
    std::printf("| %s | %.1f | %.1f | %.2f | %.1f MB | %.1f MB |\n", row.name, r.ms, s.ms,
                r.ms / s.ms, r.peakKb / 1024.0, s.peakKb / 1024.0);
  }
  return 0;
}
