// Real programs nobody here wrote, captured twice through the real `rea` binary (issue 24: "two
// captures of each real-program scenario whose output does not depend on the clock compare
// `unchanged`"). The scenarios are tests/data/real-programs/*.json: each types into the program
// and resizes its terminal at least once. Every event waits for the screen or the output it
// answers (`when`), or, where a resize makes the program write nothing to wait for (python's
// readline, sh's read), follows the event before it at once (`at_ms` 0; events stay in order).
// None waits for a time, so a busy machine changes when things happen, not what.
//
// top, htop and watch are left out: they show the clock (top's and htop's uptime and load,
// watch's refreshes), so two captures differ by design. Their screens are checked against tmux
// by the differential renderer test instead (tests/data/render-diff, recorded once).
//
// Lessons the scenarios encode (each one made a pair differ before):
//  * vim's intro screen names a sponsor chosen by the clock, and its terminal probes (version,
//    cursor blink and style, colours, ambiguous width) are answered by rea while vim draws, so
//    where its follow-up requests land in its output varied: it runs with `shortmess+=I` and
//    without the probes' termcap entries, and the first keys wait for the end of its first
//    screen (the cursor shown), when it reads.
//  * bash redraws its prompt on SIGWINCH ("\r\e[K\rready> "): an event waiting for the bare
//    prompt after a resize could fire on that redraw before the command ran, so every wait names
//    the output in front of the prompt, or the redraw itself.
//  * curses programs switch the keypad to application mode: the arrows are ESC O A/B.

#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <string>

#include "tests/integration/harness.h"
#include "tests/test-support.h"

namespace rea::test {
namespace {

struct RealProgram {
  const char* scenario;  // tests/data/real-programs/<scenario>.json
  const char* program;   // what must be installed (the executable, or what a shell runs)
};

const RealProgram REAL_PROGRAMS[] = {
    {"vim.tiny", "/usr/bin/vim.tiny"},
    {"less", "/usr/bin/less"},
    {"nano", "/usr/bin/nano"},
    {"dialog", "/usr/bin/dialog"},
    {"python3", "/usr/bin/python3"},
    {"bash", "/bin/bash"},
    {"utf8", "/bin/sh"},  // CJK, fullwidth forms, emoji and combining marks from printf
};

void PrintTo(const RealProgram& real, std::ostream* out) {
  *out << real.scenario;
}

class RealPrograms : public testing::TestWithParam<RealProgram> {};

void expectEveryEventDispatchedAndAnOrdinaryExit(const Json& capture, const std::string& which) {
  // A scenario whose wait timed out would still compare `unchanged` against itself: both
  // captures would stop at the same place. It must have done everything it says.
  EXPECT_EQ(capture["exit"]["reason"], "exited") << which << ": " << capture["exit"].dump();
  EXPECT_EQ(capture["exit"]["code"], 0) << which;
  for (const Json& event : capture["interaction_events"]) {
    EXPECT_EQ(event["outcome"], "dispatched") << which << ": " << event.dump();
  }
}

TEST_P(RealPrograms, TwoCapturesCompareUnchanged) {
  const RealProgram& real = GetParam();
  if (access(real.program, X_OK) != 0) {
    GTEST_SKIP() << real.program << " is not installed (scripts/setup.sh --test installs it)";
  }
  if (geteuid() != 0) {
    // The scenarios run with loopback networking (no `network` residual unknown, which would
    // make the comparison `unknown`); its private network namespace needs root (A9).
    GTEST_SKIP() << "loopback networking needs root";
  }
  std::string file =
      std::string(REA_SOURCE_DIR) + "/tests/data/real-programs/" + real.scenario + ".json";
  Json scenario = Json::parse(readFile(file));
  Policy policy;
  policy.allowedEnvironment = R"(["PATH","LANG","PS1"])";

  Sandbox sandbox;
  auto left = sandbox.capture(scenario, policy);
  expectValidAndClean(sandbox, left);
  auto right = sandbox.capture(scenario, policy);
  expectValidAndClean(sandbox, right);
  if (!left.output || !right.output) return;
  expectEveryEventDispatchedAndAnOrdinaryExit(capture(*left.output), "first capture");
  expectEveryEventDispatchedAndAnOrdinaryExit(capture(*right.output), "second capture");

  // Content is the point here: this suite runs beside other tests on a loaded machine, where a
  // program's start alone can vary by more than the scenarios' 500 ms timing tolerance
  // (same-verdict-test.c++ does the same).
  auto compared =
      compareCaptures(sandbox, *left.output, *right.output, {"--timing-tolerance-ms", "60000"});
  ASSERT_EQ(compared.exitCode, 0) << compared.stdoutText << compared.stderrText;
  ASSERT_TRUE(compared.output.has_value()) << compared.stdoutText;
  const Json& comparison = (*compared.output)["normalized_result"];
  EXPECT_EQ(comparison["status"], "unchanged") << comparison["first_divergence"].dump() << "\n"
                                               << comparison["limitations"].dump();
}

INSTANTIATE_TEST_SUITE_P(Issue24, RealPrograms, testing::ValuesIn(REAL_PROGRAMS),
                         [](const testing::TestParamInfo<RealProgram>& info) {
                           std::string name;
                           for (const char* c = info.param.scenario; *c != '\0'; ++c)
                             name.push_back(isalnum(static_cast<unsigned char>(*c)) ? *c : '_');
                           return name;
                         });

}  // namespace
}  // namespace rea::test
