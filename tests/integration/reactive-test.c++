// Reactive events through the real `rea` binary (issue 19): input that waits for the screen
// instead of a fixed at_ms, recorded truthfully, deterministic under load.
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/integration/busy-loops.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

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

TEST(Reactive, AnInputWaitingForTheRootsExitIsWrittenAtTheExit) {
  // The root is the session leader: its exit sends SIGHUP to the terminal's foreground group,
  // which holds the descendant (no job control in `sh -c`). The descendant ignores SIGHUP from
  // its birth (inherited from the root), or it would race its own `trap` against the root's
  // exit; on a PTY the terminal itself stays usable for it (Linux hangs up no PTY then). The
  // terminal reaches it as fd 3: `sh` gives a background list /dev/null as its input.
  Sandbox sandbox;
  Json scenario = shScenario(
      "trap '' HUP; exec 3<&0; (sleep 0.3; read x <&3; echo \"child got $x\") & "
      "echo started; exit 0");
  scenario["events"] =
      Json::array({reactiveEvent(R"({"type":"input","when":{"type":"root_exit"},"data":"yes\r"})"),
                   reactiveEvent(R"({"type":"input","at_ms":0,"data":"late\r"})")});
  scenario["settle_ms"] = 5000;  // the descendant reads after the exit: let it finish
  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  EXPECT_EQ(reactiveInteraction(result, 0)["outcome"], "dispatched");
  EXPECT_TRUE(reactiveInteraction(result, 0).contains("held_at_ms"));
  EXPECT_EQ(reactiveInteraction(result, 1)["outcome"], "target_exited");
  // The input reached the terminal after the exit (its echo follows the root's last output),
  // and the descendant read it while the capture settled.
  EXPECT_EQ(concatenatedFrames(*result.output), "started\r\nyes\r\nchild got yes\r\n");
  EXPECT_EQ(capture(*result.output)["settlement"]["state"], "quiesced");
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
    BusyLoops load;
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

// A user at a terminal: `rea record-scenario` runs on a PTY the test types into.
class DrivenTerminal {
 public:
  DrivenTerminal(const std::string& cwd, const std::vector<std::string>& args) {
    struct winsize size {};
    size.ws_col = 80;
    size.ws_row = 24;
    pid = forkpty(&master, nullptr, nullptr, &size);
    if (pid == 0) {
      if (chdir(cwd.c_str()) != 0) _exit(126);
      std::vector<char*> argv;
      for (const auto& arg : args)
        argv.push_back(const_cast<char*>(arg.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~DrivenTerminal() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    if (master >= 0) close(master);
  }
  bool waitFor(const std::string& text, int timeoutMs = 20000) {
    for (int waited = 0; seen.find(text) == std::string::npos && waited < timeoutMs; waited += 50) {
      struct pollfd fd = {master, POLLIN, 0};
      if (poll(&fd, 1, 50) > 0) {
        char buffer[4096];
        ssize_t n = read(master, buffer, sizeof(buffer));
        if (n <= 0) break;
        seen.append(buffer, size_t(n));
      }
    }
    return seen.find(text) != std::string::npos;
  }
  void type(const std::string& keys) {
    for (char c : keys) {
      ASSERT_EQ(write(master, &c, 1), 1);
      usleep(30000);  // one key at a time, as typed
    }
  }
  void resize(int columns, int rows) {
    struct winsize size {};
    size.ws_col = uint16_t(columns);
    size.ws_row = uint16_t(rows);
    ioctl(master, TIOCSWINSZ, &size);
  }
  int wait() {
    int status = -1;
    waitpid(pid, &status, 0);
    pid = -1;
    return status;
  }
  const std::string& output() const { return seen; }

 private:
  int master = -1;
  pid_t pid = -1;
  std::string seen;
};

TEST(RecordScenario, ATypedSessionBecomesAScenarioWhoseCaptureEndsOnTheSameScreen) {
  Sandbox sandbox;
  std::string out = sandbox.tmpdir() + "/recorded.json";
  DrivenTerminal terminal(
      sandbox.tmpdir(),
      {reaBinary(), "record-scenario", out, "--", "/bin/sh", "-c",
       "printf 'name? '; read n; echo \"hello, $n\"; read x; stty size; echo \"bye $x\""});
  ASSERT_TRUE(terminal.waitFor("name? ")) << terminal.output();
  terminal.type("ada\r");
  ASSERT_TRUE(terminal.waitFor("hello, ada\r\n")) << terminal.output();
  terminal.resize(100, 30);
  usleep(300000);  // rea passes the new size on before the next key
  terminal.type("go\r");
  ASSERT_TRUE(terminal.waitFor("bye go")) << terminal.output();
  ASSERT_TRUE(terminal.waitFor("rea: recorded 3 events")) << terminal.output();
  int status = terminal.wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << terminal.output();
  EXPECT_NE(terminal.output().find("30 100\r\n"), std::string::npos) << terminal.output();

  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  Json scenario = Json::parse(text.str());
  ASSERT_EQ(scenario["events"].size(), 3u) << scenario.dump();
  EXPECT_EQ(scenario["events"][0]["data"], "ada\r");  // typed key by key: one input
  EXPECT_EQ(scenario["events"][0]["when"]["value"], "name? ");
  EXPECT_EQ(scenario["events"][1]["type"], "resize");
  EXPECT_EQ(scenario["events"][1]["when"]["value"], "hello, ada");

  auto result = sandbox.capture(scenario);
  expectValidAndClean(sandbox, result);
  EXPECT_EQ(concatenatedFrames(*result.output),
            "name? ada\r\nhello, ada\r\ngo\r\n30 100\r\nbye go\r\n");
  // The recording's screen ended with these lines; so does the capture's last frame.
  const Json& last = capture(*result.output)["rendered_frames"].back()["lines"];
  std::vector<std::string> lines;
  for (const auto& line : last) {
    std::string trimmed = line.get<std::string>();
    trimmed.erase(trimmed.find_last_not_of(' ') + 1);
    if (!trimmed.empty()) lines.push_back(trimmed);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"name? ada", "hello, ada", "go", "30 100", "bye go"}));
  for (const auto& line : lines) {
    EXPECT_NE(terminal.output().find(line + "\r\n"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace rea::test
