// The differential renderer test (issue 24): transcripts replayed into our Renderer and into
// tmux 3.3a (tmux-driver.h) at the same size; after every step (an output chunk or a resize) the
// visible text (trailing spaces trimmed), the cursor and the active buffer are compared
// (replay.h). Here: the issue's five cases, which must agree exactly, the recorded real programs
// and a transcript from the environment. corrections-test.c++ has the named cases beyond the
// issue's; corpus-test.c++ the generated corpus (transcript.h, 240 transcripts run without and
// with resizes), where every transcript must agree except those listed in known-differences.h,
// each with the cause of its first difference and that cause's reason.
//
// To investigate a difference: REA_DIFF_VERBOSE=1 (corpus-test.c++) prints each one piece by
// piece, and TranscriptFromTheEnvironment (below) replays a transcript given in the form it prints.

#include "tests/unit/render-diff/recorded-known-differences.h"
#include "tests/unit/render-diff/replay.h"

#include <dirent.h>

#include <algorithm>

namespace rea::test {
namespace {

// The issue's five cases, each on its own ---------------------------------------------------------

TEST(RenderDiff, Case1WideCharactersInInsertMode) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("insert", 20, 3, {out("ABCDEFGH\r\x1b[4h日本\x1b[4l|")}));
}

TEST(RenderDiff, Case1WideCharacterAtTheLastColumnWithoutAutowrap) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("nowrap", 10, 4,
                           {out("\x1b[?7l0123456789\r\n012345678日Z\r\nnext"),
                            out("\x1b[4;1H012345678日")}));
}

TEST(RenderDiff, Case2CurrentUnicodeWidths) {
  REQUIRE_TMUX();
  expectSame(*tmux,
             single("widths", 20, 3, {out("🫠ab\r\x1b[2CY"), out("\r\n🥲cd\r\x1b[2CZ")}));
}

TEST(RenderDiff, Case3ReflowOnResize) {
  REQUIRE_TMUX();
  std::string text;
  for (int i = 0; i < 120; i++)
    text.push_back(static_cast<char>('a' + i % 26));
  expectSame(*tmux, single("reflow", 80, 6, {out(text), resize(50, 6), resize(100, 6)}));
}

TEST(RenderDiff, Case4AlternateScreenShrinksAroundTheCursor) {
  REQUIRE_TMUX();
  // What vim shows at the end of a 50-line file: lines 27-50 on 24 rows, the cursor on the last.
  std::string screen = "\x1b[?1049h\x1b[H\x1b[2J";
  for (int line = 27; line <= 50; line++)
    screen += "line " + std::to_string(line) + (line < 50 ? "\r\n" : "");
  expectSame(*tmux, single("alternate", 40, 24, {out(screen), resize(40, 12), resize(40, 24)}));
}

TEST(RenderDiff, Case5CursorWaitingToWrapIsReportedPastTheLastColumn) {
  REQUIRE_TMUX();
  expectSame(*tmux,
             single("pending", 10, 3,
                    {out("0123456789"), out("\r\n012345678日"), out("\r\n\x1b[?7l0123456789")}));
}

TEST(RenderDiff, Case5OverlineIsSerialized) {
  Renderer renderer(20, 2, 0);
  renderer.feed("\x1b[53mover\x1b[55mline");
  RenderedScreen screen = renderer.snapshot();
  EXPECT_NE(screen.serializedState.find(";53m"), std::string::npos)
      << printable(screen.serializedState);
  Renderer copy(20, 2, 0);
  copy.feed(screen.serializedState);
  EXPECT_EQ(copy.snapshot().serializedState, screen.serializedState);
}

// Recorded real programs (tests/data/render-diff)
// ---------------------------------------------------

// A recording is replayed to its end, whatever differs on the way: one early difference (a
// known one, say) must not hide the rest of it.
struct RecordedOutcome {
  std::string differingSteps;   // e.g. "3 4 5"; "" when every step agreed
  std::string firstDifference;  // in full
};

RecordedOutcome replayEveryStep(TmuxDriver& tmux, const Transcript& transcript) {
  Renderer renderer(transcript.columns, transcript.rows, SCROLLBACK);
  tmux.start(transcript.columns, transcript.rows);
  RecordedOutcome outcome;
  for (size_t i = 0; i < transcript.steps.size(); i++) {
    const TranscriptStep& step = transcript.steps[i];
    if (step.columns > 0) {
      renderer.resize(step.columns, step.rows);
      tmux.resize(step.columns, step.rows);
    } else {
      renderer.feed(step.output);
      tmux.feed(step.output);
    }
    std::string diff = difference(renderer.snapshot(), tmux.capture());
    if (diff.empty()) continue;
    if (outcome.firstDifference.empty()) {
      outcome.firstDifference =
          "step " + std::to_string(i) + " (" +
          (step.columns > 0 ? "a resize" : "output: " + printable(step.output)) + ")\n" + diff;
    }
    outcome.differingSteps += (outcome.differingSteps.empty() ? "" : " ") + std::to_string(i);
  }
  return outcome;
}

TEST(RenderDiff, RecordedProgramsMatchTmux) {
  REQUIRE_TMUX();
  std::string dir = std::string(REA_SOURCE_DIR) + "/tests/data/render-diff";
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) GTEST_SKIP() << "no recordings in " << dir;
  std::vector<std::string> files;
  while (dirent* entry = readdir(listing)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.substr(name.size() - 5) == ".json") files.push_back(name);
  }
  closedir(listing);
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    RecordedOutcome outcome = replayEveryStep(*tmux, loadTranscript(dir + "/" + file));
    const RecordedKnownDifference* known = recordedKnownDifference(file);
    // Listed (recorded-known-differences.h): exactly the listed steps differ. A fix shows as
    // fewer steps and should shorten or remove the entry; a new difference fails.
    std::string expected = known != nullptr ? std::string(known->differingSteps) : "";
    EXPECT_EQ(outcome.differingSteps, expected)
        << file << (known != nullptr ? " (listed: " + std::string(known->reason) + ")" : "")
        << "\nfirst difference: " << outcome.firstDifference;
  }
  for (const RecordedKnownDifference& known : RECORDED_KNOWN_DIFFERENCES) {
    EXPECT_EQ(std::count(files.begin(), files.end(), std::string(known.file)), 1)
        << "listed, but not recorded: " << known.file;
  }
}

}  // namespace
}  // namespace rea::test

namespace rea::test {
namespace {

// A transcript from the environment, for investigating a difference by hand:
// REA_DIFF_SIZE=COLSxROWS REA_DIFF_STEPS='bytes with \e, \n, \xNN escapes|<resize CxR>|...' (the
// form REA_DIFF_VERBOSE prints, with | between steps)
TEST(RenderDiff, TranscriptFromTheEnvironment) {
  const char* size = getenv("REA_DIFF_SIZE");
  const char* steps = getenv("REA_DIFF_STEPS");
  if (size == nullptr || steps == nullptr) GTEST_SKIP() << "REA_DIFF_SIZE/REA_DIFF_STEPS unset";
  REQUIRE_TMUX();
  Transcript transcript;
  transcript.name = "environment";
  sscanf(size, "%dx%d", &transcript.columns, &transcript.rows);
  std::string text = steps;
  size_t start = 0;
  while (start <= text.size()) {
    size_t bar = text.find('|', start);
    std::string step =
        text.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    int columns = 0, rows = 0;
    if (sscanf(step.c_str(), "<resize %dx%d>", &columns, &rows) == 2) {
      transcript.steps.push_back(resize(columns, rows));
    } else {
      std::string bytes;
      for (size_t i = 0; i < step.size(); i++) {
        if (step[i] == '\\' && i + 3 < step.size() && step[i + 1] == 'x') {
          bytes.push_back(static_cast<char>(std::stoi(step.substr(i + 2, 2), nullptr, 16)));
          i += 3;
        } else if (step[i] == '\\' && i + 1 < step.size()) {
          char c = step[++i];
          bytes.push_back(c == 'e'   ? '\x1b'
                          : c == 'n' ? '\n'
                          : c == 'r' ? '\r'
                          : c == 't' ? '\t'
                                     : c);
        } else {
          bytes.push_back(step[i]);
        }
      }
      transcript.steps.push_back(out(bytes));
    }
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  for (size_t n = 1; n <= transcript.steps.size(); n++) {
    Transcript prefix = transcript;
    prefix.steps.resize(n);
    Outcome outcome = replay(*tmux, prefix);
    EXPECT_EQ(outcome.firstDifference, "");
    if (!outcome.firstDifference.empty()) break;
  }
}

}  // namespace
}  // namespace rea::test
