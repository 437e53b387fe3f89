// ScenarioRecording (rea record-scenario): what a typed session becomes.
#include "supervisor/cli/scenario-recording.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "evidence/scenario.h"

namespace rea::supervisor {
namespace {

RecordedTarget shTarget() {
  RecordedTarget target;
  target.executable = "/bin/sh";
  target.arguments = {"-c", "true"};
  target.workingDirectory = "/tmp";
  target.path = "/usr/bin:/bin";
  return target;
}

TEST(ScenarioRecording, LastPrintableRunSkipsEscapesAndControls) {
  EXPECT_EQ(lastPrintableRun("hello\r\n\x1b[1;32mname? \x1b[0m"), "name? ");
  EXPECT_EQ(lastPrintableRun("a\r\n   \r\n"), "a");
  EXPECT_EQ(lastPrintableRun("\x1b]0;title\x07$ "), "$ ");
  EXPECT_EQ(lastPrintableRun("\r\n"), "");
  EXPECT_EQ(lastPrintableRun(std::string(300, 'x')).size(), ScenarioRecording::MAX_LITERAL_BYTES);
}

TEST(ScenarioRecording, EchoedKeysJoinOneInputThatWaitsForThePrompt) {
  ScenarioRecording recording;
  recording.output("name? ");
  for (const char* key : {"a", "d", "a", "\r"}) {
    recording.input(key);
    recording.output(std::string(key) == "\r" ? "\r\n" : key);  // the terminal's echo
  }
  recording.output("hello, ada\r\n$ ");
  recording.resize(100, 30);
  recording.input("\x03");
  evidence::Json scenario = recording.scenario(shTarget(), 1000);
  ASSERT_TRUE(evidence::parseScenario(scenario).issues.empty()) << scenario.dump();
  const auto& events = scenario["events"];
  ASSERT_EQ(events.size(), 3u) << scenario.dump();
  EXPECT_EQ(events[0]["data"], "ada\r");
  EXPECT_EQ(events[0]["when"], (evidence::Json{{"type", "output_literal"}, {"value", "name? "}}));
  EXPECT_EQ(events[1]["type"], "resize");
  EXPECT_EQ(events[1]["when"]["type"], "screen_literal");
  EXPECT_EQ(events[1]["when"]["value"], "$ ");
  EXPECT_EQ(events[2]["data"], "\x03");  // nothing printed since the resize: at once
  EXPECT_EQ(events[2]["at_ms"], 0);
  EXPECT_FALSE(events[2].contains("when"));
}

TEST(ScenarioRecording, KeysAfterNewOutputStartANewInput) {
  ScenarioRecording recording;
  recording.input("early");  // before any output: at once
  recording.output("early");
  recording.output("\r\nnext> ");
  recording.input("y");
  evidence::Json scenario = recording.scenario(shTarget(), 0);
  ASSERT_TRUE(evidence::parseScenario(scenario).issues.empty()) << scenario.dump();
  ASSERT_EQ(scenario["events"].size(), 2u);
  EXPECT_EQ(scenario["events"][0]["at_ms"], 0);
  EXPECT_EQ(scenario["events"][1]["when"]["value"], "next> ");
}

}  // namespace
}  // namespace rea::supervisor
