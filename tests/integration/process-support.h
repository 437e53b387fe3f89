#pragma once
// What the process-observation integration tests (process-test, ownership-test) share: a
// `sh -c` scenario, the run token read back from the target's output, where the capture cgroup
// would be, the check that a capture left nothing behind, and the switch forcing sampled mode.

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

namespace rea::test {

inline const char SAMPLED_SENTENCE[] =
    "The process tree is only sampled, so brief descendants can be missed.";

// The script prints the run token with its hex digits mapped to letters, so no normalisation
// (pids, ports) can touch it; tokenFrom() maps it back.
inline const char PRINT_TOKEN[] = "echo token:$(echo $REA_PROCESS_RUN_ID | tr 0-9a-f g-v):; ";

inline Json shScenario(const std::string& script, int settleMs = 100) {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments", {"-c", script}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"settle_ms", settleMs},
              {"timeout_ms", 20000}};
}

inline std::string tokenFrom(const Json& evidence) {
  std::string out = concatenatedFrames(evidence);
  size_t begin = out.find("token:");
  if (begin == std::string::npos) return "";
  begin += 6;
  size_t end = out.find(':', begin);
  std::string token = out.substr(begin, end - begin);
  for (char& c : token) {
    if (c >= 'g' && c <= 'p')
      c = char('0' + (c - 'g'));
    else if (c >= 'q' && c <= 'v')
      c = char('a' + (c - 'q'));
  }
  return token;
}

inline std::vector<std::string> cgroupCandidates(const std::string& token) {
  // Where the sampler may have created the capture cgroup: the cgroup2 mount, or this process's
  // own group under it.
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line, mount;
  while (std::getline(mountinfo, line)) {
    size_t dash = line.find(" - cgroup2 ");
    if (dash == std::string::npos) continue;
    std::istringstream head(line.substr(0, dash));
    std::string id, parent, device, root;
    head >> id >> parent >> device >> root >> mount;
    break;
  }
  if (mount.empty()) return {};
  std::vector<std::string> paths = {mount + "/rea-" + token};
  std::ifstream own("/proc/self/cgroup");
  while (std::getline(own, line)) {
    if (line.compare(0, 3, "0::") == 0 && line.size() > 4) {
      paths.push_back(mount + line.substr(3) + "/rea-" + token);
    }
  }
  return paths;
}

inline void expectValidAndClean(const Sandbox& sandbox, const RunResult& result) {
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  ASSERT_TRUE(result.output.has_value());
  auto imported = evidence::importCaptureEvidence(*result.output);
  EXPECT_TRUE(imported.ok()) << imported.detail;
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
  std::string token = tokenFrom(*result.output);
  if (!token.empty()) {
    for (const auto& path : cgroupCandidates(token)) {
      struct stat st;
      EXPECT_NE(stat(path.c_str(), &st), 0) << "capture cgroup left behind: " << path;
    }
  }
}

inline bool isExact(const Json& evidence) {
  const Json& manifest = capture(evidence)["manifest"];
  return manifest.contains("process_observation") && manifest["process_observation"] == "exact";
}

class ForcedSampling {
  // REA_FORCE_SAMPLED=1 for the rea runs of one test (the harness passes our environment on).
 public:
  ForcedSampling() { setenv("REA_FORCE_SAMPLED", "1", 1); }
  ~ForcedSampling() { unsetenv("REA_FORCE_SAMPLED"); }
};

}  // namespace rea::test
