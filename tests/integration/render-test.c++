// Rendered frames in real captures through the real `rea` binary (issue 3: terminal renderer).
#include <gtest/gtest.h>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

Json shellScenario(const std::string& shell, const std::string& script) {
  return Json{{"approved", true},
              {"executable", shell},
              {"arguments", {"-c", script}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"timeout_ms", 20000}};
}

const Json& validCapture(const Sandbox& sandbox, const RunResult& result) {
  EXPECT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  static const Json none = Json::object();
  if (!result.output) return none;
  auto imported = evidence::importCaptureEvidence(*result.output);
  EXPECT_TRUE(imported.ok()) << imported.detail;
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
  return capture(*result.output);
}

std::string padded(const std::string& text, size_t columns) {
  return text + std::string(columns - text.size(), ' ');
}

TEST(Render, TheLastFrameShowsTheScreenAfterCursorMovesClearsResizeAndAlternateScreen) {
  Sandbox sandbox;
  Json scenario = shellScenario(
      "/bin/sh",
      "printf 'one\\ntwo\\n'; printf '\\033[2J\\033[3;5HXY'; sleep 0.4; "
      "printf '\\033[?1049h\\033[HALT'; sleep 0.2; printf '\\033[?1049l\\033[10;1Hend'");
  scenario["events"] = {{{"type", "resize"}, {"at_ms", 150}, {"columns", 100}, {"rows", 30}}};
  auto result = sandbox.capture(scenario);
  const Json& c = validCapture(sandbox, result);
  const Json& frames = c["rendered_frames"];
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(c["truncated"], false);

  bool resized = false, alternate = false;
  for (size_t i = 0; i < frames.size(); ++i) {
    const Json& f = frames[i];
    EXPECT_EQ(f["sequence"], i);
    EXPECT_EQ(f["lines"].size(), f["rows"].get<size_t>());
    if (i > 0) {
      EXPECT_GE(f["at_ms"], frames[i - 1]["at_ms"]);
    }
    if (f["columns"] == 100 && f["rows"] == 30) resized = true;
    if (f["active_buffer"] == "alternate") {
      alternate = true;
      EXPECT_EQ(f["lines"][0], padded("ALT", 100));
    }
  }
  EXPECT_TRUE(resized);
  EXPECT_TRUE(alternate);

  const Json& last = frames.back();
  EXPECT_EQ(last["columns"], 100);
  EXPECT_EQ(last["rows"], 30);
  EXPECT_EQ(last["active_buffer"], "normal");
  EXPECT_EQ(last["cursor_x"], 3);
  EXPECT_EQ(last["cursor_y"], 9);
  EXPECT_EQ(last["lines"][0], padded("", 100));  // cleared: "one" and "two" are gone
  EXPECT_EQ(last["lines"][2], padded("    XY", 100));
  EXPECT_EQ(last["lines"][9], padded("end", 100));
  EXPECT_NE(last["serialized_state"].get<std::string>().find("XY"), std::string::npos);

  // The resize is an ordinary interaction; its frame has the new size.
  ASSERT_EQ(c["interaction_events"].size(), 1u);
  EXPECT_EQ(c["interaction_events"][0]["data"], "100x30");
}

TEST(Render, AProgramThatAsksForTheCursorPositionGetsAnAnswerAndTheAnswerIsRecorded) {
  Sandbox sandbox;
  Json scenario = shellScenario("/bin/bash",
                                "stty -echo -icanon; printf 'ask'; printf '\\033[6n'; "
                                "IFS= read -r -d R reply; stty sane; echo \"got${reply#?}\"");
  scenario["timeout_ms"] = 10000;
  auto result = sandbox.capture(scenario);
  const Json& c = validCapture(sandbox, result);
  EXPECT_EQ(c["exit"], Json::parse(R"({"code":0,"signal":null,"reason":"exited"})"));
  EXPECT_NE(concatenatedFrames(*result.output).find("got[1;4\r\n"), std::string::npos)
      << concatenatedFrames(*result.output);

  ASSERT_EQ(c["interaction_events"].size(), 1u);
  const Json& reply = c["interaction_events"][0];
  EXPECT_EQ(reply["type"], "input");
  EXPECT_EQ(reply["outcome"], "dispatched");
  EXPECT_EQ(reply["automatic"], true);
  EXPECT_EQ(reply["data"], "<auto-reply:DSR-cursor>\x1b[1;4R");
  EXPECT_EQ(reply["sequence"], 0);

  const Json& last = c["rendered_frames"].back();
  EXPECT_EQ(last["lines"][0], padded("askgot[1;4", 80));
  EXPECT_EQ(last["cursor_y"], 1);
}

TEST(Render, ARenderedFrameOverTheBudgetReplacesTheNewestAndTheCaptureIsComplete) {
  Sandbox sandbox;
  // Each 80x24 frame costs at least 1920 bytes of lines; raw chunks cost a byte each. Three
  // reads: the target prints the next letter only once rea has seen the previous one (a
  // reactive input; no echo), so even a drain thread kept off the CPU cannot join them.
  Json scenario = shellScenario(
      "/bin/sh", "stty -echo; printf a; read x; printf b; read x; printf c; read x; sleep 0.2");
  scenario["events"] = Json::array(
      {inputWhenOutput("a", "\r"), inputWhenOutput("b", "\r"), inputWhenOutput("c", "\r")});
  scenario["limits"] = {{"output_bytes", 5000}};
  auto result = sandbox.capture(scenario);
  const Json& c = validCapture(sandbox, result);
  EXPECT_EQ(concatenatedFrames(*result.output), "abc");
  EXPECT_EQ(c["frames"].size(), 3u);
  // A15: the third frame replaces the second, so the last screen is the final one.
  ASSERT_EQ(c["rendered_frames"].size(), 2u);
  EXPECT_EQ(c["rendered_frames"][0]["lines"][0], padded("a", 80));
  EXPECT_EQ(c["rendered_frames"][1]["lines"][0], padded("abc", 80));
  EXPECT_EQ(c["truncated"], false);

  // Only a frame costlier than the whole budget is dropped: 80x24 lines alone take 1920 bytes.
  scenario["limits"] = {{"output_bytes", 1000}};
  auto tiny = sandbox.capture(scenario);
  const Json& t = validCapture(sandbox, tiny);
  EXPECT_EQ(concatenatedFrames(*tiny.output), "abc");
  EXPECT_TRUE(t["rendered_frames"].empty());
  EXPECT_EQ(t["truncated"], true);
}

TEST(Render, ASecretNeverAppearsInRenderedLinesOrStateEvenWhenSplitWrappedOrColoured) {
  Sandbox sandbox;
  const std::string secret = "s3cr3tValue42";
  Json scenario = shellScenario(
      "/bin/bash",
      // Split over three reads; then coloured in the middle; then wrapped across two rows.
      "t=$SECRET_TOKEN; printf %s \"${t:0:4}\"; sleep 0.3; printf %s \"${t:4:5}\"; sleep 0.3; "
      "printf '%s\\r\\n' \"${t:9}\"; sleep 0.1; "
      "printf '\\033[31m%s\\033[0m%s\\r\\n' \"${t:0:6}\" \"${t:6}\"; "
      "printf '0123456789012345%s\\r\\n' \"$t\"");
  scenario["environment"]["SECRET_TOKEN"] = secret;
  scenario["secret_aliases"] = {"SECRET_TOKEN"};
  scenario["terminal"] = {{"columns", 20}, {"rows", 8}};
  auto result = sandbox.capture(scenario);
  const Json& c = validCapture(sandbox, result);
  EXPECT_EQ(result.stdoutText.find(secret), std::string::npos);
  const Json& frames = c["rendered_frames"];
  ASSERT_GE(frames.size(), 3u);
  for (const Json& f : frames) {
    std::string joined;
    for (const Json& line : f["lines"])
      joined += line.get<std::string>();
    std::string state = f["serialized_state"];
    for (const std::string& part : {secret, std::string("s3cr"), std::string("3tVal")}) {
      EXPECT_EQ(joined.find(part), std::string::npos) << part << " in " << joined;
      EXPECT_EQ(state.find(part), std::string::npos) << part << " in " << state;
    }
  }
  const Json& last = frames.back();
  // The value's 13 cells become `<redacted>`; the padding to 20 columns stays.
  const std::string redactedRow = "<redacted>" + std::string(7, ' ');
  EXPECT_EQ(last["lines"][0], redactedRow);
  EXPECT_EQ(last["lines"][1], redactedRow);
  // Wrapped: the first row gets the placeholder, the continuation loses the value's rest.
  EXPECT_EQ(last["lines"][2].get<std::string>(), "0123456789012345<redacted>");
  EXPECT_EQ(last["lines"][3].get<std::string>(), std::string(11, ' '));
}

}  // namespace
}  // namespace rea::test
