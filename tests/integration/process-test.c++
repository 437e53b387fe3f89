// Process observation through the real `rea` binary (issue "Sampler"): exact mode (cgroup +
// proc connector) where the machine allows it, forced sampling, settlement, owned cleanup, the
// process limit, and a sampler helper killed mid-capture. Tests that need exact observation skip
// where it is unavailable (e.g. inside a PID namespace, where the proc connector is refused).
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

const char SAMPLED_SENTENCE[] =
    "The process tree is only sampled, so brief descendants can be missed.";

// The script prints the run token with its hex digits mapped to letters, so no normalisation
// (pids, ports) can touch it; tokenFrom() maps it back.
const char PRINT_TOKEN[] = "echo token:$(echo $REA_PROCESS_RUN_ID | tr 0-9a-f g-v):; ";

Json shScenario(const std::string& script, int settleMs = 100) {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments", {"-c", script}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"settle_ms", settleMs},
              {"timeout_ms", 20000}};
}

std::string tokenFrom(const Json& evidence) {
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

void expectValidAndClean(const Sandbox& sandbox, const RunResult& result) {
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

bool isExact(const Json& evidence) {
  const Json& manifest = capture(evidence)["manifest"];
  return manifest.contains("process_observation") && manifest["process_observation"] == "exact";
}

size_t countCommand(const Json& c, const std::string& command) {
  size_t n = 0;
  for (const auto& sample : c["process_samples"]) {
    if (sample["command"] == command) ++n;
  }
  return n;
}

bool hasResidual(const Json& c, const std::string& scope) {
  for (const auto& r : c["residual_unknowns"]) {
    if (r["scope"] == scope) return true;
  }
  return false;
}

class ForcedSampling {
  // REA_FORCE_SAMPLED=1 for the rea runs of one test (the harness passes our environment on).
 public:
  ForcedSampling() { setenv("REA_FORCE_SAMPLED", "1", 1); }
  ~ForcedSampling() { unsetenv("REA_FORCE_SAMPLED"); }
};

TEST(Process, ExactModeRecordsForkExecAndExitAndCleansUpADaemonThatOutlivesTheRoot) {
  Sandbox sandbox;
  auto result = sandbox.capture(
      shScenario(std::string(PRINT_TOKEN) + "/bin/true; (setsid sleep 30 &); sleep 0.1", 300));
  expectValidAndClean(sandbox, result);
  if (!isExact(*result.output)) GTEST_SKIP() << "exact process observation unavailable here";
  const Json& c = capture(*result.output);
  EXPECT_EQ(countCommand(c, "/bin/true"), 1u) << c["process_samples"].dump();
  bool daemonInNewSession = false;
  for (const auto& sample : c["process_samples"]) {
    if (sample["command"] == "sleep 30" && sample["session_id"] == sample["pid"]) {
      daemonInNewSession = true;
    }
  }
  EXPECT_TRUE(daemonInNewSession) << c["process_samples"].dump();
  // The root (renumbered 1) is recorded exiting: a row with an empty command.
  bool rootExited = false;
  for (const auto& sample : c["process_samples"]) {
    if (sample["pid"] == 1 && sample["command"] == "") rootExited = true;
  }
  EXPECT_TRUE(rootExited);
  EXPECT_EQ(c["settlement"]["state"], "alive_at_deadline");
  EXPECT_EQ(c["settlement"]["cleanup_outcome"], "cleaned");
  EXPECT_FALSE(hasResidual(c, "process"));
  for (const auto& limitation : c["limitations"])
    EXPECT_NE(limitation, SAMPLED_SENTENCE);
  EXPECT_EQ(c["truncated"], false);
}

TEST(Process, ExactModeSettlesAsSoonAsTheGroupIsEmpty) {
  Sandbox sandbox;
  Json scenario = {{"approved", true},
                   {"executable", "/bin/true"},
                   {"working_directory", "/tmp"},
                   {"settle_ms", 10000}};
  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  if (!isExact(*result.output)) GTEST_SKIP() << "exact process observation unavailable here";
  const Json& c = capture(*result.output);
  EXPECT_EQ(c["settlement"]["state"], "quiesced");
  EXPECT_EQ(c["settlement"]["cleanup_outcome"], "not_required");
  // Not the deadline: the empty cgroup ended the observation.
  EXPECT_LT(c["settlement"]["elapsed_ms"].get<int64_t>(), 10000);
}

TEST(Process, ExactModeSeesAllOfAHundredShortLivedProcesses) {
  Sandbox sandbox;
  auto result = sandbox.capture(shScenario("for i in $(seq 100); do /bin/true; done"));
  expectValidAndClean(sandbox, result);
  if (!isExact(*result.output)) GTEST_SKIP() << "exact process observation unavailable here";
  // Every exec is reported by the proc connector, but the command line is read from /proc
  // afterwards: under heavy load a /bin/true can exit first and keep its parent's command. Seen
  // here in 1 of 100 while other tests ran in parallel (issue 4 keeps this open).
  EXPECT_GE(countCommand(capture(*result.output), "/bin/true"), 95u);
}

TEST(Process, ForcedSamplingGivesTheBaselineOutputs) {
  ForcedSampling forced;
  Sandbox sandbox;
  auto result =
      sandbox.capture(shScenario(std::string(PRINT_TOKEN) + "sleep 0.3 & sleep 0.2; wait", 100));
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  EXPECT_EQ(c["manifest"]["process_observation"], "sampled");
  ASSERT_FALSE(c["limitations"].empty());
  EXPECT_EQ(c["limitations"][0], SAMPLED_SENTENCE);
  bool residual = false;
  for (const auto& r : c["residual_unknowns"]) {
    if (r["scope"] == "process" && r["reason"] == SAMPLED_SENTENCE) residual = true;
  }
  EXPECT_TRUE(residual);
  EXPECT_GE(countCommand(c, "sleep 0.3"), 1u) << c["process_samples"].dump();
  EXPECT_EQ(c["settlement"]["state"], "quiesced");
  EXPECT_EQ(c["truncated"], false);
}

TEST(Process, TheProcessLimitMakesTheCapturePartial) {
  Sandbox sandbox;
  // Three children alive together for a while: both exact and sampled observation see them.
  Json scenario = shScenario("sleep 0.3 & sleep 0.3 & sleep 0.3 & wait");
  scenario["limits"] = {{"processes", 2}};
  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  EXPECT_EQ(c["process_samples"].size(), 2u);
  EXPECT_EQ(c["truncated"], true);
  size_t fs = 0;
  for (size_t i = 0; i < c["limitations"].size(); ++i) {
    if (c["limitations"][i] ==
        "The filesystem is observed through before/after snapshots rather than syscall tracing.")
      fs = i;
  }
  ASSERT_GE(fs, 1u);  // the partial sentence comes right before the filesystem one (B §4.4)
  std::string partial = c["limitations"][fs - 1];
  EXPECT_NE(partial.find("incomplete"), std::string::npos) << partial;
}

TEST(Process, AKilledSamplerTruncatesTheCaptureAndItsProcessesAreStillCleanedUp) {
  Sandbox sandbox;
  // The target finds this capture's rea-sampler by id (a child of rea, the pty helper's parent)
  // and kills it, after leaving a daemon behind.
  std::string script = std::string(PRINT_TOKEN) +
                       "(setsid sleep 30 &); sleep 0.2; "
                       "rea=$(cut -d' ' -f4 /proc/$PPID/stat); "
                       "for p in $(cat /proc/$rea/task/*/children); do "
                       "[ \"$(cat /proc/$p/comm)\" = rea-sampler ] && kill -9 $p; done; "
                       "sleep 0.2; echo survived";
  auto result = sandbox.capture(shScenario(script, 200));
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  EXPECT_NE(concatenatedFrames(*result.output).find("survived"), std::string::npos);
  EXPECT_EQ(c["truncated"], true);
  bool named = false;
  for (const auto& r : c["residual_unknowns"]) {
    std::string reason = r["reason"];
    if (r["scope"] == "process" && reason.find("sampler helper") != std::string::npos) {
      named = true;
    }
  }
  EXPECT_TRUE(named) << c["residual_unknowns"].dump();
  EXPECT_EQ(c["settlement"]["state"], "unverifiable");
}

}  // namespace
}  // namespace rea::test
