// Many captures at once (issue "Reliability", Load): 20 `rea capture-process` runs started
// together on this 2-core machine all complete, each with its own run token and temporary root,
// and no capture contains a byte of another's output.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"
#include "tests/test-support.h"

namespace rea::test {
namespace {

using rea::test::readFile;

constexpr int CAPTURES = 20;
constexpr int LINES = 300;

const char LETTERS[] = "a b c d e f g h i j";

// The name of line `line` (0-299) as the script spells it: three letters, no digit.
std::string lineName(int line) {
  return {static_cast<char>('a' + line / 100), static_cast<char>('a' + line / 10 % 10),
          static_cast<char>('a' + line % 10)};
}

std::string marker(int index) {
  return std::string("capture") + static_cast<char>('a' + index) + "line";
}

Json scenarioFor(int index, const std::string& idsPath) {
  // Lines are numbered in letters: a number equal to one of the capture's pids would be
  // normalised to <pid> (B §4.6.1, even inside a word), and in a PID namespace pids are small.
  std::string script = "for a in a b c; do for b in " + std::string(LETTERS) + "; do for c in " +
                       LETTERS + "; do echo " + marker(index) +
                       "$a$b${c}x; done; done; done; echo \"$REA_PROCESS_RUN_ID " + "$HOME\" > " +
                       idsPath;
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments", {"-c", script}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"limits", {{"frames", 100000}}},
              {"timeout_ms", 120000}};
}

TEST(Load, TwentyCapturesAtOnceStayApartAndAllComplete) {
  Sandbox sandbox;
  std::string script;
  for (int i = 0; i < CAPTURES; ++i) {
    std::string n = std::to_string(i);
    std::string scenario = sandbox.writeFile("scenario-" + n + ".json",
                                             scenarioFor(i, sandbox.tmpdir() + "/ids-" + n).dump());
    script += "'" + reaBinary() + "' capture-process '" + scenario + "' > '" + sandbox.tmpdir() +
              "/out-" + n + ".json' 2> '" + sandbox.tmpdir() + "/err-" + n + "' & ";
  }
  script += "wait";
  auto all = sandbox.runProgram("/bin/sh", {"-c", script});
  ASSERT_EQ(all.exitCode, 0) << all.stderrText;

  std::set<std::string> tokens, homes;
  for (int i = 0; i < CAPTURES; ++i) {
    std::string n = std::to_string(i);
    std::string text = readFile(sandbox.tmpdir() + "/out-" + n + ".json");
    auto evidence = Json::parse(text, nullptr, false);
    ASSERT_FALSE(evidence.is_discarded())
        << "capture " << n << ": " << readFile(sandbox.tmpdir() + "/err-" + n);
    ASSERT_FALSE(evidence.contains("error"))
        << "capture " << n << ": " << text << readFile(sandbox.tmpdir() + "/err-" + n);
    auto imported = evidence::importCaptureEvidence(evidence);
    EXPECT_TRUE(imported.ok()) << "capture " << n << ": " << imported.detail;
    EXPECT_EQ(capture(evidence)["exit"]["code"], 0) << n;

    // Exactly this capture's lines, in order, and nothing else.
    std::string expected;
    for (int line = 0; line < LINES; ++line)
      expected += marker(i) + lineName(line) + "x\r\n";
    EXPECT_EQ(concatenatedFrames(evidence), expected) << "capture " << n;

    std::istringstream ids(readFile(sandbox.tmpdir() + "/ids-" + n));
    std::string token, home;
    ids >> token >> home;
    EXPECT_FALSE(token.empty()) << n;
    tokens.insert(token);
    homes.insert(home);
  }
  EXPECT_EQ(tokens.size(), static_cast<size_t>(CAPTURES));
  EXPECT_EQ(homes.size(), static_cast<size_t>(CAPTURES));
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
}

}  // namespace
}  // namespace rea::test
