// `rea report` on real captures, rendered by headless Chromium (issue 9).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "evidence/capture.h"
#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"
#include "tests/test-support.h"

namespace rea::test {
namespace {

using rea::test::readFile;

const char CHROMIUM[] = "/usr/bin/chromium";
const char PYTHON[] = "/usr/bin/python3";
const int WIDTH = 1200;
const int HEIGHT = 1600;

// The input waits for the prompt, so that the prompt is on the screen first even on a loaded
// machine (see compare-test.c++). The right side answers differently, with markup
// that must reach the page as text. The answer comes through the environment, so the command
// line (which exact process observation records) is the same on both sides and the terminal is
// the first divergence. Only shell builtins run, so even sampled process observation (no proc
// connector) sees the same single process on both sides; and no digits, which pid normalisation
// could touch when pids are small (a PID namespace).
Json scenario(const std::string& answer) {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments",
               {"-c",
                "printf 'answer? '; read a; echo \"$ANSWER $a\"; for w in one two three four five "
                "six seven eight nine ten; do echo $w; done"}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}, {"ANSWER", answer}}},
              {"events", Json::array({inputWhenOutput("answer? ", "forty-two\r")})},
              {"timeout_ms", 20000}};
}

// Short enough to sit whole in the divergence excerpt (48 characters around the first difference).
const char HOSTILE_ANSWER[] = "<script>document.title=1</script>";

// Decodes an 8-bit RGB(A) PNG with Python's zlib and prints its size and pixel counts per
// colour, so the test can check what the screenshot shows without an image library.
const char PNG_COLOURS[] = R"(
import sys, zlib, struct, json
data = open(sys.argv[1], 'rb').read()
if data[:8] != b'\x89PNG\r\n\x1a\n': sys.exit('not a PNG')
pos, idat = 8, []
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b'IHDR': width, height, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT': idat.append(body)
    pos += 12 + length
if depth != 8 or ctype not in (2, 6) or interlace: sys.exit('unsupported PNG layout')
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(b''.join(idat))
stride = width * bpp
prev = bytes(stride)
colours = {}
for y in range(height):
    start = y * (stride + 1)
    f = raw[start]
    line = bytearray(raw[start + 1:start + 1 + stride])
    if f == 1:
        for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
    elif f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f == 3:
        for i in range(stride):
            line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
    elif f == 4:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = bytes(line)
    for x in range(0, stride, bpp):
        key = prev[x:x + 3].hex()
        colours[key] = colours.get(key, 0) + 1
print(json.dumps({'width': width, 'height': height, 'colours': colours}))
)";

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

// The opening tag of the element with this id in an HTML text.
std::string openingTag(const std::string& page, const std::string& id) {
  size_t at = page.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  size_t start = page.rfind('<', at);
  return page.substr(start, page.find('>', at) + 1 - start);
}

RunResult chromium(Sandbox& sandbox, const std::string& profile,
                   const std::vector<std::string>& args) {
  // timeout(1) bounds a hung browser; each call gets its own profile so parallel runs stay apart.
  std::vector<std::string> all = {
      "300",          CHROMIUM,        "--headless",
      "--no-sandbox", "--disable-gpu", "--user-data-dir=" + sandbox.tmpdir() + "/" + profile};
  all.insert(all.end(), args.begin(), args.end());
  return sandbox.runProgram("/usr/bin/timeout", all);
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    Policy policy;
    policy.allowedEnvironment = R"(["PATH","ANSWER"])";
    auto left = sandbox.capture(scenario("you said"), policy);
    auto right = sandbox.capture(scenario(HOSTILE_ANSWER), policy);
    ASSERT_EQ(left.exitCode, 0) << left.stdoutText << left.stderrText;
    ASSERT_EQ(right.exitCode, 0) << right.stdoutText << right.stderrText;
    leftPath = sandbox.writeFile("left.json", left.stdoutText);
    rightPath = sandbox.writeFile("right.json", right.stdoutText);
  }

  Sandbox sandbox;
  std::string leftPath, rightPath;
};

TEST_F(Report, AReportOfTwoDifferentCapturesRendersInHeadlessChromium) {
  if (access(CHROMIUM, X_OK) != 0) GTEST_SKIP() << "chromium is not installed";
  // Content only: on a loaded machine a timing deviation beyond the default tolerance could
  // come first and would be the first divergence instead (that case is a unit test).
  const std::vector<std::string> tolerance = {"--timing-tolerance-ms", "600000"};
  auto report = sandbox.run({"report", tolerance[0], tolerance[1], leftPath, rightPath});
  ASSERT_EQ(report.exitCode, 0) << report.stdoutText << report.stderrText;
  const std::string& page = report.stdoutText;
  ASSERT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u) << page.substr(0, 200);

  // The same statuses as compare-process-captures reports.
  auto compared =
      sandbox.run({"compare-process-captures", tolerance[0], tolerance[1], leftPath, rightPath});
  ASSERT_EQ(compared.exitCode, 0) << compared.stdoutText;
  const Json& comparison = (*compared.output)["normalized_result"];
  ASSERT_EQ(comparison["terminal"], "changed") << comparison.dump();
  ASSERT_EQ(comparison["first_divergence"]["dimension"], "terminal") << comparison.dump();
  for (const char* dimension :
       {"terminal", "interaction", "exit", "filesystem", "protocol", "process", "shim"}) {
    std::string status = comparison[dimension];
    EXPECT_NE(openingTag(page, std::string("dimension-") + dimension)
                  .find("data-status=\"" + status + "\""),
              std::string::npos)
        << dimension;
  }

  std::string pagePath = sandbox.writeFile("report.html", page);

  // The DOM after parsing: the statuses, the highlighted divergence, two screens, the chart,
  // and the target's markup as text only.
  auto dom = chromium(sandbox, "profile-dom", {"--dump-dom", "file://" + pagePath});
  ASSERT_EQ(dom.exitCode, 0) << dom.stderrText;
  const std::string& tree = dom.stdoutText;
  EXPECT_EQ(count(tree, "<tr class=\"dimension status-"), 7u) << tree;
  EXPECT_NE(tree.find("<tr class=\"dimension status-changed first-divergence\" "
                      "id=\"dimension-terminal\""),
            std::string::npos)
      << tree;
  EXPECT_NE(tree.find("<section id=\"first-divergence\" class=\"divergence-found\">"),
            std::string::npos);
  EXPECT_NE(tree.find("<mark class=\"divergence\">"), std::string::npos);
  EXPECT_NE(tree.find("id=\"screen-left\""), std::string::npos);
  EXPECT_NE(tree.find("id=\"screen-right\""), std::string::npos);
  EXPECT_EQ(count(tree, "<figure class=\"screen\""), 2u);
  EXPECT_NE(tree.find("forty-two"), std::string::npos);
  EXPECT_NE(tree.find("<svg id=\"timing-chart\""), std::string::npos);
  EXPECT_EQ(tree.find("<script"), std::string::npos);
  EXPECT_NE(tree.find("&lt;script&gt;document.title=1&lt;/script&gt;"), std::string::npos)
      << tree.substr(tree.find("id=\"screen-right\""), 3000);
  EXPECT_NE(tree.find("<title>rea report: changed</title>"), std::string::npos);

  // The screenshot: a PNG of the window's size that shows the page's parts in their colours.
  std::string shotPath = sandbox.tmpdir() + "/report.png";
  auto shot = chromium(sandbox, "profile-shot",
                       {"--screenshot=" + shotPath,
                        "--window-size=" + std::to_string(WIDTH) + "," + std::to_string(HEIGHT),
                        "file://" + pagePath});
  ASSERT_EQ(shot.exitCode, 0) << shot.stderrText;
  std::string png = readFile(shotPath);
  ASSERT_GT(png.size(), 24u) << "no screenshot at " << shotPath;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  auto be32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<unsigned char>(png[at])) << 24) |
           (static_cast<uint32_t>(static_cast<unsigned char>(png[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<unsigned char>(png[at + 2])) << 8) |
           static_cast<uint32_t>(static_cast<unsigned char>(png[at + 3]));
  };
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(be32(16), static_cast<uint32_t>(WIDTH));
  EXPECT_EQ(be32(20), static_cast<uint32_t>(HEIGHT));

  if (access(PYTHON, X_OK) != 0) GTEST_SKIP() << "python3 is missing: pixels not checked";
  auto decoded = sandbox.runProgram(PYTHON, {"-c", PNG_COLOURS, shotPath});
  ASSERT_EQ(decoded.exitCode, 0) << decoded.stderrText;
  ASSERT_TRUE(decoded.output.has_value()) << decoded.stdoutText;
  const Json& pixels = *decoded.output;
  EXPECT_EQ(pixels["width"], WIDTH);
  EXPECT_EQ(pixels["height"], HEIGHT);
  const Json& colours = pixels["colours"];
  auto pixelsOf = [&](const char* hex) {
    return colours.contains(hex) ? colours[hex].get<int64_t>() : int64_t{0};
  };
  int64_t total = int64_t{WIDTH} * HEIGHT;
  // Not blank: far from one colour, and every block of the page visible.
  EXPECT_GT(colours.size(), 20u);
  EXPECT_LT(pixelsOf("ffffff"), total * 95 / 100);
  EXPECT_GT(pixelsOf("0d1117"), 20000) << "the two terminal screens";
  EXPECT_GT(pixelsOf("fff1f0"), 1000) << "the changed terminal row";
  EXPECT_GT(pixelsOf("fffbea"), 5000) << "the first divergence section";
  EXPECT_GT(pixelsOf("d4a000"), 500) << "the first divergence highlight";
  EXPECT_GT(pixelsOf("ffb3ad"), 50) << "the marked divergent bytes";
}

TEST_F(Report, FailsLikeCompareAndPrintsNoPage) {
  // A tampered capture: the JSON error object of compare on stdout, one line on stderr, exit 1.
  Json tampered = Json::parse(readFile(rightPath));
  tampered["normalized_result"]["frames"][0]["data"] = "tampered";
  std::string tamperedPath = sandbox.writeFile("tampered.json", tampered.dump());
  auto report = sandbox.run({"report", leftPath, tamperedPath});
  auto compare = sandbox.run({"compare-process-captures", leftPath, tamperedPath});
  EXPECT_EQ(report.exitCode, 1);
  ASSERT_TRUE(report.output.has_value()) << report.stdoutText;
  EXPECT_EQ(*report.output, *compare.output);
  EXPECT_EQ(report.stdoutText.find("<!DOCTYPE"), std::string::npos);
  EXPECT_EQ(report.stderrText, compare.stderrText);
  EXPECT_NE(report.stderrText.find("rea: "), std::string::npos);

  // Different comparison contracts: the same message naming the fields.
  Json other = scenario("you said");
  other["timeout_ms"] = 15000;
  Policy policy;
  policy.allowedEnvironment = R"(["PATH","ANSWER"])";
  auto third = sandbox.capture(other, policy);
  ASSERT_EQ(third.exitCode, 0);
  std::string thirdPath = sandbox.writeFile("third.json", third.stdoutText);
  report = sandbox.run({"report", leftPath, thirdPath});
  EXPECT_EQ(report.exitCode, 1);
  ASSERT_TRUE(report.output.has_value()) << report.stdoutText;
  std::string message = (*report.output)["message"];
  EXPECT_NE(message.find("incompatible comparison contracts"), std::string::npos) << message;
  EXPECT_NE(message.find("timeout_ms"), std::string::npos) << message;

  // A missing file.
  report = sandbox.run({"report", leftPath, sandbox.tmpdir() + "/missing.json"});
  EXPECT_EQ(report.exitCode, 1);
  ASSERT_TRUE(report.output.has_value());
  EXPECT_EQ((*report.output)["category"], "invalid_input");
}

TEST_F(Report, OptionsReachTheComparison) {
  auto baseline = sandbox.run({"report", "--baseline-semantics", leftPath, rightPath});
  ASSERT_EQ(baseline.exitCode, 0) << baseline.stderrText;
  EXPECT_EQ(baseline.stdoutText.find("timing-chart"), std::string::npos);
  EXPECT_NE(baseline.stdoutText.find("baseline semantics"), std::string::npos);

  auto tolerant = sandbox.run({"report", "--timing-tolerance-ms", "123456", leftPath, rightPath});
  ASSERT_EQ(tolerant.exitCode, 0) << tolerant.stderrText;
  EXPECT_NE(tolerant.stdoutText.find("tolerance 123456 ms"), std::string::npos);
}

// Capture Evidence from the repository's interactive fixture (tests/data/compare), edited.
Json interactiveEvidence(const std::function<void(Json&)>& edit) {
  Json capture =
      Json::parse(readFile(REA_SOURCE_DIR "/tests/data/compare/interactive-capture.json"));
  edit(capture);
  auto parsed = evidence::parseCapture(capture);
  EXPECT_TRUE(parsed.ok()) << parsed.failureMessage();
  return evidence::buildCaptureEvidence(*parsed.capture,
                                        evidence::processEnvironment("linux", "x64"));
}

TEST(ReportScreens, AProcessRowFirstStillShowsBothScreensWithTheirDifferingRowsMarked) {
  if (access(CHROMIUM, X_OK) != 0) GTEST_SKIP() << "chromium is not installed";
  Sandbox sandbox;
  // The right side started another shell (a process row at 0 ms, the first divergence) and its
  // last screen says "hey" where the left's says "hi".
  std::string leftPath = sandbox.writeFile("left.json", interactiveEvidence([](Json&) {}).dump());
  std::string rightPath =
      sandbox.writeFile("right.json", interactiveEvidence([](Json& c) {
                                        c["process_samples"][0]["command"] = "bash";
                                        c["rendered_frames"][3]["lines"][0] = "hey       ";
                                      }).dump());
  auto compared = sandbox.run({"compare-process-captures", leftPath, rightPath});
  ASSERT_EQ(compared.exitCode, 0) << compared.stdoutText;
  const Json& comparison = (*compared.output)["normalized_result"];
  ASSERT_EQ(comparison["first_divergence"]["dimension"], "process") << comparison.dump();
  ASSERT_EQ(comparison["terminal"], "changed") << comparison.dump();

  auto report = sandbox.run({"report", leftPath, rightPath});
  ASSERT_EQ(report.exitCode, 0) << report.stdoutText << report.stderrText;
  std::string pagePath = sandbox.writeFile("report.html", report.stdoutText);
  auto dom = chromium(sandbox, "profile-dom", {"--dump-dom", "file://" + pagePath});
  ASSERT_EQ(dom.exitCode, 0) << dom.stderrText;
  const std::string& tree = dom.stdoutText;
  size_t left = tree.find("id=\"terminal-screen-left\"");
  size_t right = tree.find("id=\"terminal-screen-right\"");
  ASSERT_NE(left, std::string::npos) << tree;
  ASSERT_NE(right, std::string::npos) << tree;
  EXPECT_NE(tree.find("<span class=\"row differs\">hi        </span>", left), std::string::npos)
      << tree.substr(left, 2000);
  EXPECT_NE(tree.find("<span class=\"row differs\">hey       </span>", right), std::string::npos)
      << tree.substr(right, 2000);
  // The process row's own difference is marked inside its value.
  EXPECT_NE(tree.find("<mark class=\"divergence\">"), std::string::npos);

  // The screenshot is kept as an artefact of the test run (build/test-artefacts/).
  std::string artefacts = std::string(REA_BINARY_DIR) + "/test-artefacts";
  sandbox.runProgram("/bin/mkdir", {"-p", artefacts});
  std::string shotPath = artefacts + "/report-process-first.png";
  auto shot = chromium(sandbox, "profile-shot",
                       {"--screenshot=" + shotPath,
                        "--window-size=" + std::to_string(WIDTH) + "," + std::to_string(HEIGHT),
                        "file://" + pagePath});
  ASSERT_EQ(shot.exitCode, 0) << shot.stderrText;
  std::string png = readFile(shotPath);
  ASSERT_GT(png.size(), 24u) << "no screenshot at " << shotPath;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  if (access(PYTHON, X_OK) != 0) GTEST_SKIP() << "python3 is missing: pixels not checked";
  auto decoded = sandbox.runProgram(PYTHON, {"-c", PNG_COLOURS, shotPath});
  ASSERT_TRUE(decoded.output.has_value()) << decoded.stdoutText << decoded.stderrText;
  const Json& colours = (*decoded.output)["colours"];
  auto pixelsOf = [&](const char* hex) {
    return colours.contains(hex) ? colours[hex].get<int64_t>() : int64_t{0};
  };
  EXPECT_GT(pixelsOf("0d1117"), 2000) << "four terminal screens";
  EXPECT_GT(pixelsOf("3a1d1d"), 500) << "the differing rows of the terminal screens";
}

TEST(ReportUsage, UsageErrorsExitTwoAndHelpNamesTheCommand) {
  Sandbox sandbox;
  EXPECT_EQ(sandbox.run({"report", "only-one.json"}).exitCode, 2);
  EXPECT_EQ(sandbox.run({"report", "--pretty", "a.json", "b.json"}).exitCode, 2);
  EXPECT_EQ(sandbox.run({"report", "--timing-tolerance-ms", "x", "a", "b"}).exitCode, 2);
  auto help = sandbox.run({"report", "--help"});
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.stdoutText.find("usage: rea report"), std::string::npos);
  auto overview = sandbox.run({"--help"});
  EXPECT_NE(overview.stdoutText.find("  report LEFT RIGHT"), std::string::npos);
  auto man = sandbox.run({"help", "--man"});
  EXPECT_NE(man.stdoutText.find("rea report"), std::string::npos);
}

}  // namespace
}  // namespace rea::test
