#include "bench/support/process-measure.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "helpers/common/clock.h"

namespace rea::bench {
namespace {

double nowMs() {
  return double(helper::monotonicNowNs()) / 1e6;
}

}  // namespace

long treeRssKb(pid_t root, std::string* breakdown) {
  std::map<pid_t, pid_t> parent;
  std::map<pid_t, long> rss;
  std::map<pid_t, std::string> name;
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
      if (line.rfind("Name:\t", 0) == 0) name[pid] = line.substr(6);
      if (line.rfind("PPid:", 0) == 0) ppid = std::stol(line.substr(5));
      if (line.rfind("VmRSS:", 0) == 0) kb = std::stol(line.substr(6));
    }
    parent[pid] = static_cast<pid_t>(ppid);
    rss[pid] = kb;
  }
  closedir(dir);
  long total = 0;
  std::map<std::string, long> byName;
  for (const auto& [pid, kb] : rss) {
    for (pid_t p = pid; p > 1; p = parent.count(p) ? parent[p] : 0) {
      if (p == root) {
        total += kb;
        byName[name[pid]] += kb;
        break;
      }
    }
  }
  if (breakdown != nullptr) {
    std::vector<std::pair<long, std::string>> sorted;
    for (const auto& [n, kb] : byName)
      sorted.push_back({kb, n});
    std::sort(sorted.rbegin(), sorted.rend());
    breakdown->clear();
    char text[128];
    for (const auto& [kb, n] : sorted) {
      std::snprintf(text, sizeof(text), "%s%s %.1f", breakdown->empty() ? "" : ", ", n.c_str(),
                    double(kb) / 1024.0);
      *breakdown += text;
    }
  }
  return total;
}

Measurement measureOnce(const std::vector<std::string>& argv, Sampling sampling) {
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int fd : {0, 1, 2}) {
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0);
  }
  // posix_spawn returns once the child has exec'd (vfork semantics): a fork()ed child sampled
  // before its exec would be counted with our own RSS (the captures compare-bench holds).
  double start = nowMs();
  pid_t pid = -1;
  if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return {nowMs() - start, 0, 127 << 8, 0, {}};
  }
  posix_spawn_file_actions_destroy(&actions);
  long peak = 0;
  std::string peakBreakdown;
  int status;
  for (;;) {
    struct rusage usage;
    pid_t done = wait4(pid, &status, sampling == Sampling::TREE ? WNOHANG : 0, &usage);
    if (done == pid) {
      // Sampling every millisecond misses short peaks (rea's own, while it assembles): the
      // kernel's high-water mark of the largest single process of the tree (the root or any
      // descendant it or they reaped) is a floor the summed peak cannot be below.
      if (long(usage.ru_maxrss) > peak) {
        peak = usage.ru_maxrss;
        peakBreakdown.clear();
      }
      break;
    }
    std::string breakdown;
    long now = treeRssKb(pid, &breakdown);
    if (now > peak) {
      peak = now;
      peakBreakdown = std::move(breakdown);
    }
    usleep(1000);
  }
  Measurement measured{nowMs() - start, peak, status, 0, std::move(peakBreakdown)};
  return measured;
}

Measurement measureMedian(const std::vector<std::string>& argv, int runs, Sampling sampling) {
  std::vector<double> ms;
  std::vector<long> kb;
  int last = 0;
  std::string worstBreakdown;
  long worst = -1;
  for (int i = 0; i < runs; ++i) {
    auto s = measureOnce(argv, sampling);
    last = s.exitStatus;
    if (s.peakKb > worst) {
      worst = s.peakKb;
      worstBreakdown = s.peakBreakdown;
    }
    ms.push_back(s.ms);
    kb.push_back(s.peakKb);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(kb.begin(), kb.end());
  Measurement median{ms[ms.size() / 2], kb[kb.size() / 2], last, kb.back(),
                     std::move(worstBreakdown)};
  return median;
}

std::string selfDirectory() {
  char buffer[4096];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  buffer[n > 0 ? n : 0] = '\0';
  std::string path = buffer;
  return path.substr(0, path.rfind('/'));
}

}  // namespace rea::bench
