// `rea export-asciicast` on real captures, played back by the real asciinema (issue 9).
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/integration/harness.h"

namespace rea::test {
namespace {

Json scenario() {
  return Json{
      {"approved", true},
      {"executable", "/bin/sh"},
      {"arguments",
       {"-c",
        "printf 'name? '; read a; sleep 0.5; printf '\\033[1mhi\\033[0m %s \\303\\251\\n' \"$a\"; "
        "seq 1 200"}},
      {"working_directory", "/tmp"},
      {"environment", {{"PATH", "/usr/bin:/bin"}}},
      {"terminal", {{"columns", 100}, {"rows", 30}}},
      {"events",
       {{{"type", "input"}, {"at_ms", 300}, {"data", "ann\r"}},
        {{"type", "resize"}, {"at_ms", 350}, {"columns", 90}, {"rows", 20}}}},
      {"timeout_ms", 20000}};
}

TEST(ExportAsciicast, AsciinemaPlaysBackExactlyTheCapturedStream) {
  if (access("/usr/bin/asciinema", X_OK) != 0) GTEST_SKIP() << "asciinema is not installed";
  Sandbox sandbox;
  auto captured = sandbox.capture(scenario());
  ASSERT_EQ(captured.exitCode, 0) << captured.stdoutText;
  std::string capturePath = sandbox.writeFile("capture.json", captured.stdoutText);

  auto exported = sandbox.run({"export-asciicast", capturePath});
  ASSERT_EQ(exported.exitCode, 0) << exported.stdoutText << exported.stderrText;
  auto header = Json::parse(exported.stdoutText.substr(0, exported.stdoutText.find('\n')));
  EXPECT_EQ(header["version"], 2);
  EXPECT_EQ(header["width"], 100);
  EXPECT_EQ(header["height"], 30);
  EXPECT_NE(exported.stdoutText.find(",\"i\",\"ann\\r\"]"), std::string::npos);
  EXPECT_NE(exported.stdoutText.find(",\"r\",\"90x20\"]"), std::string::npos);

  std::string castPath = sandbox.writeFile("run.cast", exported.stdoutText);
  // asciinema cat insists on a terminal: script(1) gives it one, in raw mode so the bytes pass
  // through the PTY unchanged.
  auto played = sandbox.runProgram(
      "/usr/bin/script",
      {"-q", "-e", "-c", "stty raw -echo; asciinema cat " + castPath, "/dev/null"});
  ASSERT_EQ(played.exitCode, 0) << played.stderrText;
  EXPECT_EQ(played.stdoutText, concatenatedFrames(*captured.output));
}

TEST(ExportAsciicast, ATamperedCaptureIsRefusedWithNothingExported) {
  Sandbox sandbox;
  auto captured = sandbox.capture(scenario());
  ASSERT_EQ(captured.exitCode, 0) << captured.stdoutText;
  Json tampered = *captured.output;
  auto& frames = tampered["normalized_result"]["frames"];
  ASSERT_FALSE(frames.empty());
  frames[0]["data"] = frames[0]["data"].get<std::string>() + "x";
  auto result = sandbox.run({"export-asciicast", sandbox.writeFile("bad.json", tampered.dump())});
  EXPECT_EQ(result.exitCode, 1);
  ASSERT_TRUE(result.output.has_value()) << result.stdoutText;
  EXPECT_TRUE(result.output->contains("error")) << result.stdoutText;
  EXPECT_EQ(result.stdoutText.find("\"version\""), std::string::npos);
  EXPECT_FALSE(result.stderrText.empty());
}

TEST(ExportAsciicast, UsageErrorsExitTwo) {
  Sandbox sandbox;
  EXPECT_EQ(sandbox.run({"export-asciicast"}).exitCode, 2);
  EXPECT_EQ(sandbox.run({"export-asciicast", "--bogus", "x.json"}).exitCode, 2);
  auto missing = sandbox.run({"export-asciicast", sandbox.tmpdir() + "/missing.json"});
  EXPECT_EQ(missing.exitCode, 1);
}

}  // namespace
}  // namespace rea::test
