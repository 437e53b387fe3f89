// Reactive events through the real `rea` binary (issue 19): input that waits for the screen
// instead of a fixed at_ms, recorded truthfully, deterministic under load.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/integration/harness.h"

extern char** environ;

namespace rea::test {
namespace {

// Two busy loops for the length of a test (the issue's load), ended by their pids.
class ReactiveBusyLoops {
 public:
  ReactiveBusyLoops() {
    for (int i = 0; i < 2; ++i) {
      pid_t pid = 0;
      const char* argv[] = {"/bin/sh", "-c", "while :; do :; done", nullptr};
      if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0) {
        pids.push_back(pid);
      }
    }
  }
  ~ReactiveBusyLoops() {
    for (pid_t pid : pids) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }

 private:
  std::vector<pid_t> pids;
};

Json reactiveEvent(const char* json) {
  return Json::parse(json);
}

const Json& reactiveInteraction(const RunResult& result, size_t index) {
  return capture(*result.output)["interaction_events"][index];
}

TEST(Reactive, APromptAfterARandomDelayIsAnsweredInEveryCapture) {
  // The prompt comes 0-300 ms after the start (seeded by the shell's pid): a fixed at_ms would
  // answer some captures before the prompt, a waiting input never does.
  Sandbox sandbox;
  Json scenario = shScenario(
      "sleep $(awk -v s=$$ 'BEGIN { srand(s); printf \"%.3f\", rand() * 0.3 }'); "
      "printf 'name? '; read name; echo \"hello, $name\"");
  scenario["events"] = Json::array(
      {reactiveEvent(R"({"type":"input","when":{"type":"output_literal","value":"name? "},)"
                     R"("data":"ada\r","timeout_ms":10000})")});
  for (int i = 0; i < 20; ++i) {
    auto result = sandbox.capture(scenario);
    ASSERT_EQ(result.exitCode, 0) << result.stderrText;
    EXPECT_EQ(concatenatedFrames(*result.output), "name? ada\r\nhello, ada\r\n") << "capture " << i;
    const Json& answered = reactiveInteraction(result, 0);
    EXPECT_EQ(answered["outcome"], "dispatched");
    EXPECT_EQ(answered["when"]["value"], "name? ");
    EXPECT_LE(answered["held_at_ms"], answered["dispatched_at_ms"]);
  }
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
}

TEST(Reactive, AConditionThatNeverHoldsTimesOutAndTheRunGoesOnOrStops) {
  Sandbox sandbox;
  Json scenario = shScenario("printf 'ready\\n'; read line; echo \"got $line\"");
  scenario["events"] = Json::array(
      {reactiveEvent(R"({"type":"input","when":{"type":"output_literal","value":"never"},)"
                     R"("data":"lost\r","timeout_ms":200})"),
       reactiveEvent(R"({"type":"input","at_ms":0,"data":"next\r"})")});
  auto goesOn = sandbox.capture(scenario);
  expectValidAndClean(sandbox, goesOn);
  EXPECT_EQ(reactiveInteraction(goesOn, 0)["outcome"], "timed_out");
  EXPECT_EQ(reactiveInteraction(goesOn, 0)["data"], "<not-dispatched>");
  EXPECT_FALSE(reactiveInteraction(goesOn, 0).contains("held_at_ms"));
  EXPECT_GE(reactiveInteraction(goesOn, 0)["dispatched_at_ms"], 200);
  EXPECT_EQ(reactiveInteraction(goesOn, 1)["outcome"],
            "dispatched");  // after the timeout, in order
  EXPECT_NE(concatenatedFrames(*goesOn.output).find("got next"), std::string::npos);
  EXPECT_EQ(capture(*goesOn.output)["exit"]["code"], 0);

  scenario["events"][0]["on_timeout"] = "stop";
  auto stops = sandbox.capture(scenario);
  expectValidAndClean(sandbox, stops);
  EXPECT_EQ(reactiveInteraction(stops, 0)["outcome"], "timed_out");
  EXPECT_EQ(reactiveInteraction(stops, 1)["outcome"], "target_exited");
  EXPECT_EQ(capture(*stops.output)["exit"],
            Json::parse(R"({"code":null,"signal":9,"reason":"timeout"})"));
}

TEST(Reactive, ARegexAndAScreenRowDriveTheirEvents) {
  Sandbox sandbox;
  // The status line only matches once its word is complete; the size is printed once the
  // resize (which waits for row 5 of the screen) has reached the terminal.
  Json scenario = shScenario(
      "printf 'status: load'; sleep 0.2; printf 'ing done\\n'; read a; echo \"ok $a\"; "
      "printf 'one\\ntwo\\nmenu>\\n'; sleep 1; stty size");
  scenario["terminal"] = {{"columns", 60}, {"rows", 10}};
  scenario["events"] = Json::array(
      {reactiveEvent(
           R"({"type":"input","when":{"type":"output_regex","pattern":"status: [a-z]+ done"},)"
           R"("data":"yes\r"})"),
       reactiveEvent(R"({"type":"resize","when":{"type":"screen_literal","value":"menu>","row":5},)"
                     R"("columns":70,"rows":12})")});
  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("status: loading done\r\nyes\r\nok yes\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("12 70\r\n"), std::string::npos) << out;
  EXPECT_EQ(reactiveInteraction(result, 0)["outcome"], "dispatched");
  EXPECT_EQ(reactiveInteraction(result, 1)["outcome"], "dispatched");
  EXPECT_EQ(reactiveInteraction(result, 1)["when"]["row"], 5);
}

TEST(Reactive, SensitiveInputThatWaitsStaysRedacted) {
  Sandbox sandbox;
  Json scenario = shScenario("printf 'password: '; read pw; echo \"len ${#pw}\"");
  scenario["events"] = Json::array(
      {reactiveEvent(R"({"type":"input","when":{"type":"output_literal","value":"password: "},)"
                     R"("data":"hunter2\r","sensitive":true})")});
  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  EXPECT_EQ(result.stdoutText.find("hunter2"), std::string::npos);
  EXPECT_EQ(reactiveInteraction(result, 0)["data"], "<redacted-input:8-bytes>");
}

Json reactiveExample(const std::string& name) {
  std::ifstream in(std::string(REA_SOURCE_DIR) + "/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

TEST(Reactive, TheReactiveInteractiveExampleComparesUnchangedWithItselfUnderLoad) {
  Sandbox sandbox;
  std::vector<Json> captures;
  {
    ReactiveBusyLoops load;
    for (int i = 0; i < 10; ++i) {
      auto result = sandbox.capture(reactiveExample("interactive-reactive.json"));
      ASSERT_EQ(result.exitCode, 0) << result.stderrText;
      captures.push_back(*result.output);
    }
  }
  EXPECT_NE(concatenatedFrames(captures[0]).find("40 100"), std::string::npos);
  // Content only (timing on a loaded machine legitimately differs); the process dimension is
  // compared where observation is exact (compare-test.c++ says why).
  for (size_t a = 0; a < captures.size(); ++a) {
    for (size_t b = a + 1; b < captures.size(); ++b) {
      auto result =
          compareCaptures(sandbox, captures[a], captures[b], {"--timing-tolerance-ms", "600000"});
      ASSERT_EQ(result.exitCode, 0) << result.stderrText;
      const Json& comparison = (*result.output)["normalized_result"];
      for (const char* dimension : {"terminal", "interaction", "filesystem", "protocol", "shim"}) {
        EXPECT_EQ(comparison[dimension], "unchanged")
            << a << " vs " << b << ", " << dimension << ": " << comparison.dump();
      }
      bool exact = capture(captures[a])["manifest"].value("process_observation", "") == "exact" &&
                   capture(captures[b])["manifest"].value("process_observation", "") == "exact";
      if (exact) {
        EXPECT_EQ(comparison["status"], "unchanged") << comparison.dump();
      }
    }
  }
}

}  // namespace
}  // namespace rea::test
