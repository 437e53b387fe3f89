// Process observation through the real `rea` binary (issue "Sampler"): exact mode (cgroup +
// proc connector) where the machine allows it, forced sampling, settlement, owned cleanup, the
// process limit, and a sampler helper killed mid-capture. Tests that need exact observation skip
// where it is unavailable (e.g. inside a PID namespace, where the proc connector is refused).
#include <unistd.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/integration/busy-loops.h"
#include "tests/integration/process-support.h"

namespace rea::test {
namespace {

const char UNREAD_SENTENCE[] =
    "Some short-lived programs ended before their command lines could be read; their exec rows "
    "are missing.";

bool saysUnread(const Json& c) {
  bool inLimitations = false, inResiduals = false;
  for (const auto& limitation : c["limitations"])
    inLimitations |= limitation == UNREAD_SENTENCE;
  for (const auto& r : c["residual_unknowns"])
    inResiduals |= r["scope"] == "process" && r["reason"] == UNREAD_SENTENCE;
  EXPECT_EQ(inLimitations, inResiduals) << "the sentence is both a limitation and an unknown";
  return inLimitations;
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

TEST(Process, ExactModeRecordsForkExecAndExitAndCleansUpADaemonThatOutlivesTheRoot) {
  Sandbox sandbox;
  auto result = sandbox.capture(
      settledScenario(std::string(PRINT_TOKEN) + "/bin/true; (setsid sleep 30 &); sleep 0.1", 300));
  expectValidAndClean(sandbox, result);
  if (!isExact(*result.output)) GTEST_SKIP() << "exact process observation unavailable here";
  const Json& c = capture(*result.output);
  // Its exec, by argv or by name if it exited first. A short-lived program reaped before its
  // exec was read (this /bin/true, the token line's `tr`) loses its row, and then the capture
  // says so (see the hundred below); it is not truncated.
  bool execLost = saysUnread(c);
  size_t trues = countCommand(c, "/bin/true") + countCommand(c, "[true]");
  EXPECT_LE(trues, 1u) << c["process_samples"].dump();
  if (!execLost) {
    EXPECT_EQ(trues, 1u) << c["process_samples"].dump();
  }
  bool daemonInNewSession = false;
  for (const auto& sample : c["process_samples"]) {
    if (sample["command"] == "sleep 30" && sample["session_id"] == sample["pid"]) {
      daemonInNewSession = true;
    }
  }
  EXPECT_TRUE(daemonInNewSession) << c["process_samples"].dump();
  // Exits are no rows (A15: never a row with an empty command).
  for (const auto& sample : c["process_samples"])
    EXPECT_NE(sample["command"], "") << sample.dump();
  EXPECT_EQ(c["settlement"]["state"], "alive_at_deadline");
  EXPECT_EQ(c["settlement"]["cleanup_outcome"], "cleaned");
  EXPECT_EQ(hasResidual(c, "process"), execLost) << "only lost execs leave a process unknown";
  EXPECT_EQ(c["truncated"], false);
  for (const auto& limitation : c["limitations"])
    EXPECT_NE(limitation, SAMPLED_SENTENCE);
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

const char HUNDRED_TRUES[] = "i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i+1)); done";

// The hundred children of HUNDRED_TRUES: each has its fork row (the shell's command, parent 1)
// and, when its exec was observed, one exec row; exits are no rows (A15). Returns how many
// exec rows name the program.
size_t checkHundredChildren(const Json& c) {
  std::map<int64_t, std::vector<std::string>> children;
  for (const auto& sample : c["process_samples"]) {
    EXPECT_NE(sample["command"], "") << sample.dump();
    if (sample["pid"] == 1) continue;
    EXPECT_EQ(sample["parent_pid"], 1) << sample.dump();
    children[sample["pid"].get<int64_t>()].push_back(sample["command"]);
  }
  EXPECT_EQ(children.size(), 100u) << c["process_samples"].dump();
  size_t execs = 0;
  for (const auto& child : children) {
    for (const auto& command : child.second) {
      if (command == "/bin/true" || command == "[true]") ++execs;
    }
  }
  return execs;
}

std::string execObservation(const Json& c) {
  return c["manifest"].value("exec_observation", std::string());
}

TEST(Process, ExactModeSeesAllOfAHundredShortLivedProcesses) {
  Sandbox sandbox;
  auto result = sandbox.capture(settledScenario(HUNDRED_TRUES));
  expectValidAndClean(sandbox, result);
  if (!isExact(*result.output)) GTEST_SKIP() << "exact process observation unavailable here";
  const Json& c = capture(*result.output);
  size_t execs = checkHundredChildren(c);
  if (execObservation(c) == "seccomp_notify") {
    // Each exec was seen before it happened: its command line is never lost.
    EXPECT_EQ(countCommand(c, "/bin/true"), 100u);
    EXPECT_FALSE(saysUnread(c));
  } else {
    // From /proc when the event arrives: a /bin/true that already exited is recorded by its
    // name ("[true]"); one already reaped too loses its exec row, and the capture says so.
    EXPECT_EQ(execObservation(c), "procfs");
    EXPECT_LE(execs, 100u);
    EXPECT_EQ(saysUnread(c), execs < 100) << "a lost exec is said exactly when there is one";
  }
  EXPECT_EQ(c["truncated"], false);
}

TEST(Process, UnderLoadWithoutCapSysNiceEveryExecHasItsCommand) {
  // Issue 17: with both cores busy and no realtime priority, /proc lost up to 98 of these
  // hundred command lines. Kernel-side observation sees each exec while its caller waits.
  const char* capsh = "/usr/sbin/capsh";
  if (access(capsh, X_OK) != 0) GTEST_SKIP() << "capsh is not installed (libcap2-bin)";
  BusyLoops load;
  for (int run = 0; run < 3; ++run) {
    Sandbox sandbox;
    std::string file = sandbox.writeFile("scenario.json", settledScenario(HUNDRED_TRUES).dump());
    auto result =
        sandbox.runProgram(capsh, {"--drop=cap_sys_nice", "--", "-c",
                                   "exec '" + reaBinary() + "' capture-process '" + file + "'"});
    expectValidAndClean(sandbox, result);
    const Json& c = capture(*result.output);
    if (execObservation(c) != "seccomp_notify") {
      GTEST_SKIP() << "kernel-side exec observation unavailable here (exec_observation \""
                   << execObservation(c) << "\"; `rea doctor` says why)";
    }
    if (isExact(*result.output)) {
      EXPECT_EQ(checkHundredChildren(c), 100u) << "run " << run;
    } else {
      // Sampled (a PID namespace): no fork rows, but each exec is a row of its own.
      std::set<int64_t> pids;
      for (const auto& sample : c["process_samples"]) {
        if (sample["command"] == "/bin/true") pids.insert(sample["pid"].get<int64_t>());
      }
      EXPECT_EQ(pids.size(), 100u) << "run " << run;
    }
    EXPECT_EQ(countCommand(c, "/bin/true"), 100u) << "run " << run;
    EXPECT_FALSE(saysUnread(c)) << "run " << run;
    EXPECT_EQ(c["truncated"], false);
  }
}

TEST(Process, TheProcfsExecObservationCanBeForced) {
  // REA_EXEC_OBSERVATION=procfs (helpers/sampler/README.md): the path a kernel or container
  // without seccomp user notification gets.
  setenv("REA_EXEC_OBSERVATION", "procfs", 1);
  Sandbox sandbox;
  auto result = sandbox.capture(settledScenario(HUNDRED_TRUES));
  unsetenv("REA_EXEC_OBSERVATION");
  expectValidAndClean(sandbox, result);
  if (!isExact(*result.output)) GTEST_SKIP() << "exact process observation unavailable here";
  const Json& c = capture(*result.output);
  EXPECT_EQ(execObservation(c), "procfs");
  size_t execs = checkHundredChildren(c);
  EXPECT_LE(execs, 100u);
  EXPECT_EQ(saysUnread(c), execs < 100) << "a lost exec is said exactly when there is one";
  EXPECT_EQ(c["truncated"], false);
}

TEST(Process, SampledModeHasNoExecObservation) {
  ForcedSampling forced;
  Sandbox sandbox;
  auto result = sandbox.capture(settledScenario("/bin/true"));
  expectValidAndClean(sandbox, result);
  EXPECT_FALSE(capture(*result.output)["manifest"].contains("exec_observation"));
}

TEST(Process, ForcedSamplingGivesTheBaselineOutputs) {
  ForcedSampling forced;
  Sandbox sandbox;
  auto result = sandbox.capture(
      settledScenario(std::string(PRINT_TOKEN) + "sleep 0.3 & sleep 0.2; wait", 100));
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
  Json scenario = settledScenario("sleep 0.3 & sleep 0.3 & sleep 0.3 & wait");
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
                       "/bin/true && echo exec-ok || echo exec-refused; "
                       "sleep 0.2; echo survived";
  auto result = sandbox.capture(settledScenario(script, 200));
  expectValidAndClean(sandbox, result);
  const Json& c = capture(*result.output);
  std::string frames = concatenatedFrames(*result.output);
  EXPECT_NE(frames.find("survived"), std::string::npos);
  // With kernel-side exec observation the sampler held the only listener: once it is gone the
  // kernel refuses the target's execs (ENOSYS) instead of letting them wait for an answer that
  // will never come. Either way the target goes on (helpers/sampler/README.md).
  EXPECT_TRUE(frames.find("exec-ok") != std::string::npos ||
              frames.find("exec-refused") != std::string::npos)
      << frames;
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
