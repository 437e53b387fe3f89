// The command line as a person and a script meet it (issue 23): summaries in words on a real
// terminal and the unchanged JSON on a pipe, -o (whole file), --format, --exit-code like
// diff(1), the loud truncation warning, doctor's exit status, and the Unix conventions
// (--opt=value, --, - for stdin, short usage errors, unknown help topics).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "evidence/capture.h"
#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

// A namespace of its own: unity batches put several test files in one translation unit.
namespace rea::test::command_line {
namespace {

size_t lineCount(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A real terminal for rea's stdout: what rea wrote to it, once rea has exited.
struct Terminal {
  int master = -1;
  int slave = -1;
  std::string received;
  std::thread reader;

  Terminal() {
    if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) return;
    fcntl(master, F_SETFD, FD_CLOEXEC);
    fcntl(slave, F_SETFD, FD_CLOEXEC);
    reader = std::thread([this]() {
      char buffer[4096];
      for (;;) {
        ssize_t n = read(master, buffer, sizeof(buffer));
        if (n > 0) {
          received.append(buffer, static_cast<size_t>(n));
        } else if (!(n < 0 && errno == EINTR)) {
          return;
        }
      }
    });
  }

  std::string closeAndCollect() {
    close(slave);
    reader.join();
    close(master);
    // The terminal's output processing turned "\n" into "\r\n".
    std::string text;
    for (char c : received) {
      if (c != '\r') text += c;
    }
    return text;
  }
};

// Capture Evidence built from the repository's minimal capture, with its exit code set: two of
// them with the same code compare `unchanged`, different codes `changed`.
Json minimalEvidence(int exitCode) {
  std::ifstream in(REA_SOURCE_DIR "/tests/data/compare/minimal-capture.json");
  std::stringstream text;
  text << in.rdbuf();
  Json capture = Json::parse(text.str());
  capture["exit"]["code"] = exitCode;
  auto parsed = evidence::parseCapture(capture);
  EXPECT_TRUE(parsed.ok()) << parsed.failureMessage();
  return evidence::buildCaptureEvidence(*parsed.capture,
                                        evidence::processEnvironment("linux", "x64"));
}

TEST(CommandLine, CaptureSummaryOnATerminalTheSameJsonOnAPipeAndInTheOutputFile) {
  Sandbox sandbox;
  Json scenario = shScenario("echo hello from the summary");
  std::string file = sandbox.writeFile("out.json", "an older result");

  Terminal terminal;
  ASSERT_GE(terminal.master, 0) << "openpty failed";
  sandbox.stdoutTo(terminal.slave);
  auto onTerminal = sandbox.capture(scenario, {}, {"-o", file});
  sandbox.stdoutTo(-1);
  std::string summary = terminal.closeAndCollect();
  ASSERT_EQ(onTerminal.exitCode, 0) << summary << onTerminal.stderrText;

  // The terminal got words, not JSON.
  EXPECT_EQ(summary.rfind("capture: sh exited with code 0\n", 0), 0u) << summary;
  for (const char* part : {"  output:", "  processes:", "  files:", "  shims:", "  protocol:",
                           "  truncated:    no", "residual unknowns", "evidence id: "}) {
    EXPECT_TRUE(contains(summary, part)) << part << "\n" << summary;
  }
  EXPECT_TRUE(contains(summary, "  | hello from the summary")) << summary;
  EXPECT_LT(lineCount(summary), 40u) << summary;

  // The -o file replaced the older one with the whole Evidence, and left no temporary file.
  Json written = Json::parse(readWhole(file));
  EXPECT_EQ(written["operation"], "capture_process_scenario");
  EXPECT_TRUE(contains(concatenatedFrames(written), "hello from the summary"));
  EXPECT_TRUE(contains(summary, written["evidence_id"].get<std::string>())) << summary;
  auto leftovers =
      sandbox.runProgram("/bin/sh", {"-c", "ls -a \"$TMPDIR\" | grep -c rea- || true"});
  EXPECT_EQ(leftovers.stdoutText, "0\n") << "a temporary -o file was left behind";

  // A pipe gets the JSON, as always; --format text and --format json choose explicitly.
  auto piped = sandbox.capture(scenario);
  ASSERT_EQ(piped.exitCode, 0) << piped.stderrText;
  ASSERT_TRUE(piped.output.has_value()) << piped.stdoutText;
  EXPECT_EQ((*piped.output)["operation"], "capture_process_scenario");
  EXPECT_EQ(concatenatedFrames(*piped.output), concatenatedFrames(written));
  EXPECT_EQ(piped.stderrText, "");
}

TEST(CommandLine, CompareExitCodeIsZeroOneOrTwoLikeDiff) {
  Sandbox sandbox;
  std::string same = sandbox.writeFile("same.json", minimalEvidence(0).dump());
  std::string again = sandbox.writeFile("again.json", minimalEvidence(0).dump());
  std::string other = sandbox.writeFile("other.json", minimalEvidence(1).dump());

  auto unchanged = sandbox.run({"compare-process-captures", "--exit-code", same, again});
  EXPECT_EQ(unchanged.exitCode, 0) << unchanged.stdoutText;
  ASSERT_TRUE(unchanged.output.has_value()) << unchanged.stdoutText;
  EXPECT_EQ((*unchanged.output)["normalized_result"]["status"], "unchanged");

  auto changed = sandbox.run({"compare-process-captures", "--exit-code", same, other});
  EXPECT_EQ(changed.exitCode, 1) << changed.stdoutText;
  ASSERT_TRUE(changed.output.has_value()) << changed.stdoutText;
  EXPECT_EQ((*changed.output)["normalized_result"]["status"], "changed");
  EXPECT_EQ((*changed.output)["normalized_result"]["exit"], "changed");

  auto missing = sandbox.run({"compare-process-captures", "--exit-code", same, "nosuch.json"});
  EXPECT_EQ(missing.exitCode, 2) << missing.stdoutText;
  ASSERT_TRUE(missing.output.has_value()) << "still the error object: " << missing.stdoutText;
  EXPECT_EQ((*missing.output)["category"], "invalid_input");

  // A tampered capture: the message names the commitment that broke.
  Json edited = minimalEvidence(0);
  edited["normalized_result"]["exit"]["code"] = 3;
  std::string tampered = sandbox.writeFile("tampered.json", edited.dump());
  auto refused = sandbox.run({"compare-process-captures", "--exit-code", same, tampered});
  EXPECT_EQ(refused.exitCode, 2);
  ASSERT_TRUE(refused.output.has_value()) << refused.stdoutText;
  EXPECT_TRUE(
      contains((*refused.output)["message"].get<std::string>(), "evidence_id: does not match"))
      << refused.stdoutText;

  // Without --exit-code: 0 whatever the status, 1 for the error (unchanged behaviour).
  EXPECT_EQ(sandbox.run({"compare-process-captures", same, other}).exitCode, 0);
  EXPECT_EQ(sandbox.run({"compare-process-captures", same, "nosuch.json"}).exitCode, 1);

  // --format text: the table in words; -o: the JSON in the file.
  std::string file = same.substr(0, same.rfind('/')) + "/comparison.json";
  auto text =
      sandbox.run({"compare-process-captures", "--format=text", "--output=" + file, same, other});
  EXPECT_EQ(text.exitCode, 0);
  EXPECT_EQ(text.stdoutText.rfind("comparison: changed\n", 0), 0u) << text.stdoutText;
  EXPECT_TRUE(contains(text.stdoutText, "  exit" + std::string(9, ' ') + "changed\n"))
      << text.stdoutText;
  EXPECT_EQ(Json::parse(readWhole(file))["normalized_result"]["status"], "changed");
}

TEST(CommandLine, ATruncatedCaptureSaysWhichLimitOnStderrAndInItsLimitations) {
  Sandbox sandbox;
  Json scenario =
      shScenario("i=0; while [ $i -lt 400 ]; do echo line-$i-of-output; i=$((i+1)); done");
  scenario["limits"] = {{"output_bytes", 1000}};
  auto result = sandbox.capture(scenario);
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  ASSERT_TRUE(result.output.has_value());
  const Json& captured = capture(*result.output);
  EXPECT_EQ(captured["truncated"], true);
  std::string sentence;
  for (const auto& limitation : captured["limitations"]) {
    // Rendered screens may be cut short too (a sentence of their own): the raw output's is it.
    std::string text = limitation;
    if (text.rfind("Limit reached: limits.output_bytes is ", 0) == 0) sentence = text;
  }
  EXPECT_TRUE(contains(sentence, "limits.output_bytes is 1000")) << captured["limitations"];
  EXPECT_TRUE(
      contains(result.stderrText, "rea: warning: the capture is truncated. " + sentence + "\n"))
      << result.stderrText;
  // On a terminal, the progress line says so while the target still runs.
  scenario["arguments"][1] = scenario["arguments"][1].get<std::string>() + "; sleep 1";
  Terminal terminal;
  ASSERT_GE(terminal.master, 0) << "openpty failed";
  sandbox.stderrTo(terminal.slave);
  auto watched = sandbox.capture(scenario);
  sandbox.stderrTo(-1);
  std::string drawn = terminal.closeAndCollect();
  EXPECT_EQ(watched.exitCode, 0) << watched.stdoutText;
  EXPECT_TRUE(contains(drawn, "(limits.output_bytes reached: output truncated)")) << drawn;
}

TEST(CommandLine, DoctorExitsNonZeroWithTheReasonWhenCapturesWouldBeRefused) {
  Sandbox sandbox;
  auto good = sandbox.run({"doctor"});
  EXPECT_EQ(good.exitCode, 0) << good.stdoutText << good.stderrText;
  EXPECT_TRUE(contains(good.stdoutText, "captures can run on this machine")) << good.stdoutText;
  // The roots as written, and what they resolve to when that differs.
  EXPECT_TRUE(contains(good.stdoutText, "\n    /bin")) << good.stdoutText;
  EXPECT_TRUE(contains(good.stdoutText, "\n    /usr/bin")) << good.stdoutText;

  Policy disabled;
  disabled.enabled = false;
  auto off = sandbox.run({"doctor"}, disabled);
  EXPECT_EQ(off.exitCode, 1) << off.stdoutText;
  EXPECT_TRUE(contains(off.stdoutText, "captures would be refused: capture is disabled"))
      << off.stdoutText;
  EXPECT_TRUE(contains(off.stderrText, "REA_PROCESS_CAPTURE_ENABLED")) << off.stderrText;

  Policy invalid;
  invalid.executableRoots = "not json";
  auto bad = sandbox.run({"doctor", "--json"}, invalid);
  EXPECT_EQ(bad.exitCode, 1) << bad.stdoutText;
  ASSERT_TRUE(bad.output.has_value()) << bad.stdoutText;
  EXPECT_EQ((*bad.output)["captures_can_run"], false);
  EXPECT_TRUE(contains((*bad.output).value("captures_refused_because", ""), "invalid"));
}

// Parses an SVG with Python's XML parser and prints its texts with their fill colours as JSON.
const char SVG_TEXTS[] = R"(
import sys, json, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == '{http://www.w3.org/2000/svg}svg', root.tag
print(json.dumps([[t.text, t.get('fill')] for t in root.iter('{http://www.w3.org/2000/svg}text')]))
)";

TEST(CommandLine, ExportScreenDrawsARenderedFrameAsValidSvgWithItsColours) {
  Sandbox sandbox;
  Json scenario = shScenario("printf 'plain \\033[31mred words\\033[0m end\\n'");
  // root_exit, not a terminal literal: a literal printed just before the exit can still be
  // missed on main (SPEC A15, another issue), which is not what this test is about.
  scenario["checkpoints"] = {{{"name", "shown"}, {"trigger", {{"type", "root_exit"}}}}};
  auto captured = sandbox.capture(scenario);
  ASSERT_EQ(captured.exitCode, 0) << captured.stdoutText << captured.stderrText;
  std::string file = sandbox.writeFile("capture.json", captured.stdoutText);

  for (const char* at : {"end", "checkpoint:shown"}) {
    auto svg = sandbox.run({"export-screen", std::string("--at=") + at, file});
    ASSERT_EQ(svg.exitCode, 0) << svg.stderrText;
    std::string path = sandbox.writeFile("screen.svg", svg.stdoutText);
    auto parsed = sandbox.runProgram("/usr/bin/python3", {"-c", SVG_TEXTS, path});
    ASSERT_EQ(parsed.exitCode, 0) << parsed.stderrText << svg.stdoutText.substr(0, 2000);
    ASSERT_TRUE(parsed.output.has_value()) << parsed.stdoutText;
    std::string red, plain;
    for (const auto& text : *parsed.output) {
      std::string content = text[0].is_string() ? text[0].get<std::string>() : "";
      if (contains(content, "red words")) red = text[1];
      if (contains(content, "plain")) plain = text[1];
    }
    EXPECT_FALSE(red.empty()) << at << ": " << parsed.stdoutText;
    EXPECT_FALSE(plain.empty()) << at << ": " << parsed.stdoutText;
    EXPECT_NE(red, plain) << "the red words keep their colour";
  }
  EXPECT_EQ(sandbox.run({"export-screen", "--at", "checkpoint:nosuch", file}).exitCode, 2);
  EXPECT_EQ(sandbox.run({"export-screen", "--at", "frame:99999", file}).exitCode, 2);
}

TEST(CommandLine, RefusalsCarryTheDetailsAScriptActsOn) {
  Sandbox sandbox;
  Policy disabled;
  disabled.enabled = false;
  auto off = sandbox.capture(shScenario("true"), disabled);
  EXPECT_EQ(off.exitCode, 1);
  ASSERT_TRUE(off.output.has_value()) << off.stdoutText;
  EXPECT_EQ((*off.output)["code"], "permission_required");
  EXPECT_EQ((*off.output)["details"]["capability"], "process_capture");
  EXPECT_TRUE((*off.output)["details"]["ceiling"].is_null()) << off.stdoutText;
  EXPECT_EQ((*off.output)["remediation"]["elicitation_supported"], false);
  // The words still say what to change.
  EXPECT_TRUE(
      contains((*off.output)["message"].get<std::string>(), "REA_PROCESS_CAPTURE_ENABLED=true"));

  Json secret = shScenario("true");
  secret["environment"]["NOT_ALLOWED"] = "x";
  auto env = sandbox.capture(secret);
  ASSERT_TRUE(env.output.has_value()) << env.stdoutText;
  EXPECT_EQ((*env.output)["details"]["missing"],
            Json::parse(R"({"environment_names":["NOT_ALLOWED"]})"));
  EXPECT_EQ((*env.output)["details"]["ceiling"]["network"], "external");

  Json missingRoot = shScenario("true");
  missingRoot["filesystem_roots"] = {"/tmp/rea-no-such-root-for-this-test"};
  auto missing = sandbox.capture(missingRoot);
  ASSERT_TRUE(missing.output.has_value()) << missing.stdoutText;
  EXPECT_EQ((*missing.output)["code"], "unreadable_output");
}

TEST(CommandLine, ConventionalArgumentsAndShortUsageErrors) {
  Sandbox sandbox;
  // A usage error: the problem and where the help is, two lines, exit 2.
  auto unknown = sandbox.run({"capture-process", "--bogus", "x.json"});
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_EQ(lineCount(unknown.stderrText), 2u) << unknown.stderrText;
  EXPECT_TRUE(contains(unknown.stderrText, "try `rea capture-process --help`"))
      << unknown.stderrText;
  EXPECT_EQ(sandbox.run({"help", "nosuch"}).exitCode, 2);
  EXPECT_EQ(sandbox.run({"help", "doctor"}).exitCode, 0);
  // Every command in the overview has its own help.
  for (const char* command : {"capture-process", "compare-process-captures", "export-asciicast",
                              "export-screen", "report", "doctor"}) {
    auto help = sandbox.run({"help", command});
    EXPECT_EQ(help.exitCode, 0) << command;
    EXPECT_EQ(help.stdoutText.rfind(std::string("usage: rea ") + command, 0), 0u) << command;
  }
  EXPECT_EQ(sandbox.run({"capture-process", "--format", "xml", "x.json"}).exitCode, 2);

  // -- ends the options: `--help` after it is a file name (a missing one), not a request.
  auto dashes = sandbox.run({"capture-process", "--", "--help"});
  EXPECT_EQ(dashes.exitCode, 1) << dashes.stdoutText;
  ASSERT_TRUE(dashes.output.has_value()) << dashes.stdoutText;
  EXPECT_EQ((*dashes.output)["category"], "invalid_input");

  // - is standard input; invalid JSON is located by line and column.
  std::string broken = sandbox.writeFile("broken.json", "{\n  \"approved\": true,\n  oops\n}\n");
  auto fromStdin = sandbox.runProgram(
      "/bin/sh", {"-c", "\"$0\" capture-process - < \"$1\"", reaBinary(), broken});
  EXPECT_EQ(fromStdin.exitCode, 1) << fromStdin.stdoutText;
  EXPECT_TRUE(contains(fromStdin.stderrText, "`-` is not valid JSON (UTF-8) at line 3, column 3"))
      << fromStdin.stderrText;

  // --opt=value works like --opt value.
  std::string same = sandbox.writeFile("same.json", minimalEvidence(0).dump());
  auto tolerance =
      sandbox.run({"compare-process-captures", "--timing-tolerance-ms=75", same, same});
  EXPECT_EQ(tolerance.exitCode, 0) << tolerance.stderrText;
  ASSERT_TRUE(tolerance.output.has_value());
  EXPECT_EQ((*tolerance.output)["normalized_result"]["timing"]["tolerance_ms"], 75);
}

}  // namespace
}  // namespace rea::test::command_line
