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

inline Json settledScenario(const std::string& script, int settleMs = 100) {
  Json scenario = shScenario(script);
  scenario["settle_ms"] = settleMs;
  return scenario;
}
// shScenario() with `settle_ms`.

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
