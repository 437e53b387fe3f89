// The helper fault matrix (issue "Reliability", SPEC A13): every helper (pty, sampler, fswatch,
// shim, replay) is made to fail on purpose (REA_TEST_FAULT, helpers/common/fault-injection.h) in
// every way (kill, abort, exit0, stall, malformed) at every moment (start, first-batch, mid-run,
// settle, stop) while a target that uses all of them runs. One test per helper × moment (so that
// ctest runs them in parallel), each looping over the faults. Per case rea must end within the
// scenario deadline plus a grace, with the outcome the case allows (see expectedOutcome), leave
// no process, capture cgroup or temp root behind, and a truncated capture must never compare as
// equivalent, neither to a clean capture of the same scenario nor to itself (B §9.2). Each test
// writes its rows to <build>/fault-rows/; the ctest fixture fault.table assembles them into
// <build>/fault-table.md (tests/README.md).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "evidence/evidence-record.h"
#include "helpers/common/clock.h"
#include "tests/integration/harness.h"
#include "tests/test-support.h"

namespace rea::test {
namespace {

using rea::test::readFile;

constexpr int64_t TIMEOUT_MS = 4000;
// rea's own stall deadlines (the scenario deadline plus 3 s for the pty, 5 s per call for the
// others) plus a loaded ASan run.
constexpr int64_t GRACE_MS = 20000;
const char* const FAULTS[] = {"kill", "abort", "exit0", "stall", "malformed"};
const char TRUNCATED_SENTENCE[] = "At least one capture is truncated.";  // B §9.2
const char* const DIMENSIONS[] = {"terminal", "interaction", "exit", "filesystem",
                                  "protocol", "process",     "shim"};

int64_t nowMs() {
  return static_cast<int64_t>(helper::monotonicNowNs() / 1000000);
}

// A target that keeps every helper busy for about a second: output (pty), children (sampler),
// files under a declared root and a checkpoint (fswatch), shim calls, replay requests. It writes
// its run token (REA_PROCESS_RUN_ID) outside the root so the test can look for its cgroup.
Json busyScenario(const std::string& root, const std::string& tokenFile) {
  std::string script = "echo \"$REA_PROCESS_RUN_ID\" > " + tokenFile +
                       "; for i in 1 2 3 4; do echo tick $i; echo $i > " + root +
                       "/f$i; tool go >/dev/null 2>&1; "
                       "curl -s -m 1 \"$REA_REPLAY_HTTP_URL/ping\" >/dev/null; sleep 0.15; done; "
                       "echo ready";
  return Json{
      {"approved", true},
      {"executable", "/bin/sh"},
      {"arguments", {"-c", script}},
      {"working_directory", "/tmp"},
      {"environment", {{"PATH", "/usr/bin:/bin"}}},
      {"filesystem_roots", {root}},
      {"checkpoints",
       {{{"name", "ready"}, {"trigger", {{"type", "terminal_literal"}, {"value", "ready"}}}}}},
      {"command_shims",
       {{{"name", "tool"},
         {"routes",
          {{{"arguments", {"go"}},
            {"outputs", {{{"at_ms", 0}, {"stream", "stdout"}, {"data", "ok\n"}}}},
            {"termination", {{"type", "exit"}, {"code", 0}}}}}}}}},
      {"replay",
       {{"http", {{{"method", "GET"}, {"path", "/ping"}, {"status", 200}, {"body", "pong"}}}}}},
      {"timeout_ms", TIMEOUT_MS}};
}

enum class Expected { TRUNCATED, ERROR, COMPLETE };

const char* expectedName(Expected expected) {
  switch (expected) {
    case Expected::TRUNCATED:
      return "truncated capture";
    case Expected::ERROR:
      return "structured error";
    case Expected::COMPLETE:
      return "complete capture (moment never reached)";
  }
  return "?";
}

Expected expectedOutcome(const std::string& helper, const std::string& moment) {
  // The pty helper lost while starting the target: nothing of the target can be observed. The
  // shim and replay helpers start before the target, which needs their port in its environment:
  // lost then, the scenario's target is never started.
  if ((helper == "pty" || helper == "shim" || helper == "replay") && moment == "start") {
    return Expected::ERROR;
  }
  // The shim and replay helpers get no call when the capture settles (only start and finish),
  // and fswatch sends no event batches (it answers snapshot calls): those moments never come.
  if ((helper == "shim" || helper == "replay") && moment == "settle") return Expected::COMPLETE;
  if (helper == "fswatch" && moment == "first-batch") return Expected::COMPLETE;
  return Expected::TRUNCATED;
}

bool saysHowItEnded(const std::string& reason, const std::string& fault) {
  // The residual unknown's sentence says how the helper ended (A13).
  if (fault == "kill") return reason.find("SIGKILL") != std::string::npos;
  if (fault == "abort") return reason.find("SIGABRT") != std::string::npos;
  // "exited with status 0", or "died before it was ready (exit status 0)" at its first call.
  if (fault == "exit0") return reason.find("status 0") != std::string::npos;
  if (fault == "stall") {
    return reason.find("in time") != std::string::npos ||
           reason.find("stopped answering") != std::string::npos;
  }
  return reason.find("malformed") != std::string::npos;
}

class HelperFault : public testing::TestWithParam<std::tuple<const char*, const char*>> {
 protected:
  std::string helper = std::get<0>(GetParam());
  std::string moment = std::get<1>(GetParam());
  Sandbox shared;  // the root and the scenario all runs of this test use (identical scenarios)
  std::string root = shared.tmpdir() + "/root";
  std::string tokenFile = shared.tmpdir() + "/run-token";
  Json scenario = busyScenario(root, tokenFile);
  std::optional<std::string> cleanCapture;  // path of a fault-free capture, made on first use

  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "the capture cgroup and loopback need root";
    mkdir(root.c_str(), 0700);
  }

  void resetRoot() {
    std::string command = "rm -rf '" + root + "' '" + tokenFile + "'";
    ASSERT_EQ(system(command.c_str()), 0);
    mkdir(root.c_str(), 0700);
  }

  const std::string& cleanCapturePath() {
    if (!cleanCapture) {
      resetRoot();
      auto result = shared.capture(scenario);
      EXPECT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
      EXPECT_TRUE(result.output && capture(*result.output)["truncated"] == false)
          << "the clean capture must not be truncated: " << result.stdoutText.substr(0, 2000);
      cleanCapture = shared.writeFile("clean.json", result.stdoutText);
    }
    return *cleanCapture;
  }

  bool neverEquivalent(const std::string& where, const std::string& faulted,
                       const std::string& other) {
    // B §9.2: a truncated capture short-circuits every dimension to `truncated`.
    auto result = shared.run({"compare-process-captures", faulted, other});
    if (result.exitCode != 0 || !result.output) {
      ADD_FAILURE() << where << ": compare failed: " << result.stdoutText << result.stderrText;
      return false;
    }
    const Json& comparison = (*result.output)["normalized_result"];
    bool ok = comparison["status"] == "truncated" &&
              comparison["first_divergence"] ==
                  Json({{"status", "unknown"}, {"reason", TRUNCATED_SENTENCE}}) &&
              comparison["limitations"] == Json::array({TRUNCATED_SENTENCE});
    for (const char* dimension : DIMENSIONS)
      ok = ok && comparison[dimension] == "truncated";
    EXPECT_TRUE(ok) << where << ": " << comparison.dump();
    return ok;
  }

  bool nothingLeft(const std::string& where, const Sandbox& sandbox, const std::string& plan) {
    std::vector<int> processes = sandbox.leftoverProcesses();
    // Helpers get REA_TEST_FAULT (and no HOME), tagged with this test process (the tag ends in
    // a '.', so no tag is a prefix of another's); targets get the run token.
    for (int pid : processesWithEnvironment("REA_TEST_FAULT=" + plan))
      processes.push_back(pid);
    std::string token = readFile(tokenFile);
    if (!token.empty() && token.back() == '\n') token.pop_back();
    std::vector<std::string> cgroups;
    if (!token.empty()) {
      for (int pid : processesWithEnvironment("REA_PROCESS_RUN_ID=" + token))
        processes.push_back(pid);
      for (const auto& path : cgroupCandidates(token)) {
        if (access(path.c_str(), F_OK) == 0) cgroups.push_back(path);
      }
    }
    auto roots = sandbox.leftoverTempRoots();
    EXPECT_TRUE(processes.empty()) << where << ": " << processes.size() << " processes left";
    EXPECT_TRUE(cgroups.empty()) << where << ": capture cgroup left: " << cgroups[0];
    EXPECT_TRUE(roots.empty()) << where << ": temp root left: " << roots[0];
    return processes.empty() && cgroups.empty() && roots.empty();
  }

  std::string runCase(const std::string& fault) {
    // One row of the table: "| helper | moment | fault | expected | outcome | ms | pass |".
    std::string plan = helper + ":" + fault + ":" + moment;
    Expected expected = expectedOutcome(helper, moment);
    resetRoot();
    Sandbox sandbox;
    // Tagged with this test process: the other build tree's suite runs the same plan meanwhile.
    std::string tagged = plan + "@test" + std::to_string(getpid()) + ".";
    setenv("REA_TEST_FAULT", tagged.c_str(), 1);
    setenv("REA_TEST_FAULT_DELAY_MS", "300", 1);
    // A start that fails prints its reason on stderr (shown when the row fails).
    setenv("REA_DEBUG", "1", 1);
    int64_t start = nowMs();
    auto result = sandbox.capture(scenario);
    int64_t elapsed = nowMs() - start;
    unsetenv("REA_TEST_FAULT");
    unsetenv("REA_TEST_FAULT_DELAY_MS");
    unsetenv("REA_DEBUG");

    bool inTime = elapsed <= TIMEOUT_MS + GRACE_MS;
    EXPECT_TRUE(inTime) << plan << " took " << elapsed << " ms";
    bool clean = nothingLeft(plan, sandbox, tagged);
    std::string outcome;
    bool ok = false;
    if (!result.output) {
      outcome = "no JSON output (exit " + std::to_string(result.exitCode) + ")";
    } else if (result.exitCode == 1 && result.output->contains("error")) {
      // B §2.4: {error, code, category, message, ...}
      const Json& error = *result.output;
      outcome = "structured error " + error.value("code", error.value("category", std::string())) +
                ": " + error.value("message", std::string());
      ok = expected == Expected::ERROR;
    } else if (result.exitCode == 0) {
      auto imported = evidence::importCaptureEvidence(*result.output);
      EXPECT_TRUE(imported.ok()) << plan << ": " << imported.detail;
      const Json& c = capture(*result.output);
      std::string named;
      for (const auto& residual : c["residual_unknowns"]) {
        std::string reason = residual.value("reason", std::string());
        if (reason.find("the " + helper + " helper") != std::string::npos) named = reason;
      }
      if (c["truncated"] == true && !named.empty()) {
        outcome = "truncated: " + named;
        ok = expected == Expected::TRUNCATED && imported.ok() && saysHowItEnded(named, fault);
        std::string path = sandbox.writeFile("faulted.json", result.stdoutText);
        ok = neverEquivalent(plan + " vs clean", path, cleanCapturePath()) && ok;
        ok = neverEquivalent(plan + " vs itself", path, path) && ok;
      } else if (c["truncated"] == false && named.empty()) {
        outcome = "complete capture";
        ok = expected == Expected::COMPLETE && imported.ok();
      } else {
        outcome = c["truncated"] == true ? "truncated without naming the helper"
                                         : "not truncated although the helper was lost";
      }
    } else {
      outcome = "exit " + std::to_string(result.exitCode);
    }
    EXPECT_TRUE(ok) << plan << ": expected " << expectedName(expected) << ", got " << outcome
                    << "\n"
                    << result.stdoutText.substr(0, 3000) << result.stderrText.substr(0, 2000);
    for (char& c : outcome) {
      if (c == '|' || c == '\n') c = ' ';
    }
    return "| " + helper + " | " + moment + " | " + fault + " | " + expectedName(expected) + " | " +
           outcome + " | " + std::to_string(elapsed) + " | " +
           (ok && inTime && clean ? "pass" : "**FAIL**") + " |\n";
  }
};

TEST_P(HelperFault, EndsInTimeWithTheAllowedOutcomeAndNothingLeft) {
  std::string rows;
  for (const char* fault : FAULTS)
    rows += runCase(fault);
  std::string directory = std::string(REA_BINARY_DIR) + "/fault-rows";
  mkdir(directory.c_str(), 0755);
  std::ofstream(directory + "/" + helper + "-" + moment + ".md") << rows;
  std::printf("%s", rows.c_str());
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, HelperFault,
    testing::Combine(testing::Values("pty", "sampler", "fswatch", "shim", "replay"),
                     testing::Values("start", "first-batch", "mid-run", "settle", "stop")),
    [](const testing::TestParamInfo<HelperFault::ParamType>& info) {
      std::string name = std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace rea::test
