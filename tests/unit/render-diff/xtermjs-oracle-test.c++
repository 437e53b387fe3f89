// xterm.js as the second oracle (SPEC B §6.11 names it the reference for rendering): for every
// transcript known-differences.h lists, xterm.js 6.0.0's screen at the first difference from tmux
// must still be what the list says (XtermJs), so a change of the Renderer that parts from
// xterm.js where it agreed, or a new agreement, shows here.
//
// Runs only where the oracle is installed (scripts/xtermjs-oracle.sh installs it with npm into
// build/xtermjs-oracle, or $REA_XTERMJS_DIR) and node and tmux are present; skips otherwise. It
// never installs anything itself.

#include "tests/unit/render-diff/dump.h"
#include "tests/unit/render-diff/known-differences.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

namespace rea::test {
namespace {

const char* verdictName(XtermJs verdict) {
  switch (verdict) {
    case XtermJs::AGREES_WITH_REA:
      return "AGREES_WITH_REA";
    case XtermJs::AGREES_WITH_TMUX:
      return "AGREES_WITH_TMUX";
    case XtermJs::SAME_TEXT_OTHER_CURSOR:
      return "SAME_TEXT_OTHER_CURSOR";
    case XtermJs::DIFFERS:
      return "DIFFERS";
    case XtermJs::PARTED_EARLIER:
      return "PARTED_EARLIER";
  }
  return "?";
}

// The screens of a dump file, one per step, and each without its cursor line (the text).
std::vector<std::string> screens(const std::string& path) {
  std::string text = readFile(path);
  std::vector<std::string> steps;
  size_t start = 0;
  while (start < text.size()) {
    size_t next = text.find("\nstep ", start);
    size_t end = next == std::string::npos ? text.size() : next + 1;
    steps.push_back(text.substr(start, end - start));
    start = end;
  }
  return steps;
}

std::string textOf(const std::string& screen) {
  size_t cursorLine = screen.find('\n');
  size_t textStart = screen.find('\n', cursorLine + 1);
  return textStart == std::string::npos ? "" : screen.substr(textStart);
}

XtermJs verdict(const std::string& base) {
  std::vector<std::string> rea = screens(base + ".rea.txt");
  std::vector<std::string> tmux = screens(base + ".tmux.txt");
  std::vector<std::string> xtermjs = screens(base + ".xtermjs.txt");
  size_t first = 0;
  while (first < rea.size() && first < tmux.size() && rea[first] == tmux[first])
    first++;
  for (size_t i = 0; i < first && i < xtermjs.size(); i++) {
    if (xtermjs[i] != rea[i]) return XtermJs::PARTED_EARLIER;
  }
  if (first >= xtermjs.size() || first >= rea.size()) return XtermJs::DIFFERS;
  if (xtermjs[first] == rea[first]) return XtermJs::AGREES_WITH_REA;
  if (xtermjs[first] == tmux[first]) return XtermJs::AGREES_WITH_TMUX;
  if (textOf(xtermjs[first]) == textOf(rea[first])) return XtermJs::SAME_TEXT_OTHER_CURSOR;
  return XtermJs::DIFFERS;
}

TEST(RenderDiff, XtermJsAnswersAsKnownDifferencesSay) {
  const char* dir = getenv("REA_XTERMJS_DIR");
  std::string install = dir != nullptr ? dir : REA_SOURCE_DIR "/build/xtermjs-oracle";
  if (access((install + "/node_modules/@xterm/headless/package.json").c_str(), R_OK) != 0) {
    GTEST_SKIP() << "the xterm.js oracle is not installed in " << install
                 << " (run scripts/xtermjs-oracle.sh once)";
  }
  if (system("node --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "node is not installed";
  REQUIRE_TMUX();
  char scratch[] = "/tmp/rea-xtermjs-XXXXXX";
  ASSERT_NE(mkdtemp(scratch), nullptr);
  std::string directory = scratch;
  for (const KnownDifferingTranscript& known : KNOWN_DIFFERING_TRANSCRIPTS) {
    dumpTranscript(*tmux, generateTranscript(known.seed, known.resizes),
                   directory + "/" + dumpName(known.resizes, known.seed));
  }
  std::string command = "NODE_PATH='" + install +
                        "/node_modules' node '" REA_SOURCE_DIR
                        "/scripts/xtermjs-oracle/compare.js' '" +
                        directory + "' >'" + directory + "/compare.txt'";
  ASSERT_EQ(system(command.c_str()), 0) << command;
  for (const KnownDifferingTranscript& known : KNOWN_DIFFERING_TRANSCRIPTS) {
    std::string name = dumpName(known.resizes, known.seed);
    EXPECT_STREQ(verdictName(verdict(directory + "/" + name)), verdictName(known.xtermjs))
        << name << ": xterm.js's answer at the first difference from tmux changed; "
        << "REA_DIFF_VERBOSE=1 scripts/xtermjs-oracle.sh --compare DIR " << name
        << " (DIR from REA_DIFF_DUMP) shows the three screens";
  }
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace rea::test
