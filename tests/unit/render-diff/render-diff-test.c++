// The differential renderer test (issue 24): transcripts replayed into our Renderer and into
// tmux 3.3a (tmux-driver.h) at the same size; after every step (an output chunk or a resize) the
// visible text (trailing spaces trimmed), the cursor and the active buffer are compared. The
// issue's five cases and the named cases after them must agree exactly; of the generated corpus
// (transcript.h, 240 transcripts run without and with resizes) every transcript must agree except
// those listed in known-differences.h, each with the cause of its first difference and that
// cause's reason (what tmux does there, what xterm and xterm.js do).
//
// The generator steers clear of one more tmux particularity: a cursor whose wrap is pending stays
// at column `columns` in tmux, where an erase, insert or delete acts on nothing (xterm and
// libvterm act on the last column), so every control piece starts with a CR.
//
// To investigate a difference: REA_DIFF_VERBOSE=1 prints each one (listed or not) piece by piece,
// and TranscriptFromTheEnvironment replays a transcript given in the form it prints.

#include "helpers/pty/screen-renderer.h"
#include "tests/unit/render-diff/known-differences.h"
#include "tests/unit/render-diff/tmux-driver.h"
#include "tests/unit/render-diff/transcript.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace rea::test {
namespace {

using rea::helper::RenderedScreen;
using rea::helper::Renderer;

constexpr int SCROLLBACK = 1000;
constexpr unsigned CORPUS_SIZE = 240;

TmuxDriver* sharedTmux() {
  // One server for the whole program: starting tmux costs more than a transcript.
  static std::unique_ptr<TmuxDriver> driver;
  if (!driver && TmuxDriver::available()) driver = std::make_unique<TmuxDriver>(SCROLLBACK);
  return driver.get();
}

std::string rtrim(std::string line) {
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
  return line;
}

std::string printable(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c == 0x1b) {
      out += "\\e";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

// What differs between the two screens, or "" if nothing does.
std::string difference(const RenderedScreen& ours, const TmuxScreen& theirs) {
  std::ostringstream out;
  std::vector<std::string> ourLines;
  for (const std::string& line : ours.lines)
    ourLines.push_back(rtrim(line));
  std::vector<std::string> theirLines = theirs.lines;
  for (std::string& line : theirLines)
    line = rtrim(line);
  bool same = ourLines == theirLines && ours.cursorX == theirs.cursorX &&
              ours.cursorY == theirs.cursorY && ours.alternate == theirs.alternate;
  if (same) return "";
  out << "ours: cursor " << ours.cursorX << "," << ours.cursorY
      << (ours.alternate ? " alternate" : " normal") << "\n";
  for (const std::string& line : ourLines)
    out << "  |" << line << "|\n";
  out << "tmux: cursor " << theirs.cursorX << "," << theirs.cursorY
      << (theirs.alternate ? " alternate" : " normal") << "\n";
  for (const std::string& line : theirLines)
    out << "  |" << line << "|\n";
  return out.str();
}

struct Outcome {
  std::string firstDifference;  // "" when every step agreed
  int step = -1;                // the step it showed after
};

Outcome replay(TmuxDriver& tmux, const Transcript& transcript, int piecesOf = -1) {
  // piecesOf >= 0 (a piecewise transcript): compare only at the ends of the unsplit steps,
  // except within step `piecesOf`, after each of its pieces; so the first difference is the one
  // the unsplit transcript shows, found at the piece that made it.
  Renderer renderer(transcript.columns, transcript.rows, SCROLLBACK);
  tmux.start(transcript.columns, transcript.rows);
  std::string fed;
  for (size_t i = 0; i < transcript.steps.size(); i++) {
    const TranscriptStep& step = transcript.steps[i];
    if (i > 0) fed += "|";  // steps as TranscriptFromTheEnvironment reads them
    if (step.columns > 0) {
      renderer.resize(step.columns, step.rows);
      tmux.resize(step.columns, step.rows);
      fed += "<resize " + std::to_string(step.columns) + "x" + std::to_string(step.rows) + ">";
    } else {
      renderer.feed(step.output);
      tmux.feed(step.output);
      fed += step.output;
    }
    bool endOfStep =
        i + 1 == transcript.steps.size() || transcript.steps[i + 1].source != step.source;
    if (piecesOf >= 0 && step.source != piecesOf && !endOfStep) continue;
    std::string diff = difference(renderer.snapshot(), tmux.capture());
    if (!diff.empty()) {
      return Outcome{transcript.name + " (" + std::to_string(transcript.columns) + "x" +
                         std::to_string(transcript.rows) + ") step " + std::to_string(i) +
                         " after: " + printable(fed) + "\nlast step: " +
                         (step.columns > 0 ? "<resize>" : printable(step.output)) + "\n" + diff,
                     static_cast<int>(i)};
    }
  }
  return Outcome{};
}

#define REQUIRE_TMUX()                                          \
  TmuxDriver* tmux = sharedTmux();                              \
  if (tmux == nullptr) GTEST_SKIP() << "tmux is not installed"; \
  static_assert(true)

Transcript single(const std::string& name, int columns, int rows,
                  std::vector<TranscriptStep> steps) {
  return Transcript{name, columns, rows, std::move(steps)};
}

TranscriptStep out(std::string bytes) {
  return TranscriptStep{std::move(bytes), 0, 0};
}

TranscriptStep resize(int columns, int rows) {
  return TranscriptStep{"", columns, rows};
}

void expectSame(TmuxDriver& tmux, const Transcript& transcript) {
  Outcome outcome = replay(tmux, transcript);
  EXPECT_EQ(outcome.firstDifference, "");
}

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

// Beyond the issue's cases: libvterm 0.1.4 moves differently from xterm and tmux
// (screen-corrections.h) ------------------------------------------------------------------------

TEST(RenderDiff, ScrollRegionsOfOneRowAreIgnored) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("one-row-region", 10, 5,
                           {out("a\r\n\x1b[3;3rb\x1b[3;1Hc\nd\ne\nf\ng"), out("\x1b[4;2rh\ni")}));
}

TEST(RenderDiff, CursorMovesStopAtTheScrollRegionsMargins) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("margins", 6, 6,
                           {out("\x1b[2;4r\x1b[3;3H\x1b[9Au\x1b[9Bd\x1b[9Fp\x1b[9En"),
                            out("\x1b[6;2H\x1b[9At\x1b[1;1H\x1b[9Ba\x1b[5;1H\x1b[2Bb"),
                            out("\x1b[2;1Habcdef\x1b[A"), out("\x1b[?6h\x1b[9Bz\x1b[?6l\x1b[r")}));
}

TEST(RenderDiff, AChangeOfRowsResetsTheScrollRegion) {
  REQUIRE_TMUX();
  expectSame(*tmux,
             single("region-resize", 10, 6,
                    {out("\x1b[2;4r\x1b[4;1Ha\nb\nc"), resize(10, 3), out("\x1b[3;1Hx\ny\nz"),
                     out("\x1b[2;3r"), resize(12, 3), out("\x1b[3;1Hv\nw")}));
}

TEST(RenderDiff, CsiSAndCsiUSaveAndRestoreTheCursor) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("scosc", 10, 3,
                           {out("ab\x1b[sXY\x1b[uZ"),
                            out("\r\ncd\x1b"
                                "7XY\x1b[uZ"),
                            out("\r\nef\x1b[sXY\x1b"
                                "8Z")}));
}

TEST(RenderDiff, EnteringTheAlternateScreenAgainKeepsIt) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("alternate-again", 10, 3,
                           {out("ab\x1b[?1049hkept\r\n"), out("\x1b[?1049hx"), out("\x1b[?1047hy"),
                            out("\x1b[?47hz"), out("\x1b[?1049l")}));
}

TEST(RenderDiff, AResizeChangesTheRowsBeforeItReflows) {
  // tmux and xterm.js resize the rows (dropping rows below the cursor, pulling rows back from
  // scrollback) at the old width, then reflow; these generated transcripts differed while the
  // Renderer reflowed first (and 114, which now differs for another cause: REFLOW_DETAILS).
  REQUIRE_TMUX();
  for (unsigned seed : {26u, 61u, 73u, 81u, 133u, 185u, 219u})
    expectSame(*tmux, generateTranscript(seed, true));
}

TEST(RenderDiff, AWideCharacterInTheLastTwoColumnsWithoutAutowrap) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("nowrap-wide-edge", 11, 3,
                           {out("\x1b[?7l字字字字字字字"), out("\r\nabcdefghiｆｕｌｌ"),
                            out("\r\nabcdefghi雪x")}));
}

TEST(RenderDiff, TheNormalBufferIsReflowedUnderTheAlternateScreen) {
  REQUIRE_TMUX();
  expectSame(*tmux,
             single("alternate-reflow", 10, 6,
                    {out("abcdefghijkl\r\n12\x1b[?1049hvim"), resize(20, 6), out("\x1b[?1049lX"),
                     out("\x1b[?1049h"), resize(5, 6), out("\x1b[?1049lY")}));
}

TEST(RenderDiff, ADeletedContinuationRowTakesItsJoinAlong) {
  REQUIRE_TMUX();
  std::string wide;
  for (int i = 0; i < 21; i++)
    wide += "字";
  expectSame(*tmux, single("deleted-continuation", 13, 7, {out(wide + "\r\x1b[M"), resize(20, 6)}));
}

TEST(RenderDiff, BlankCellsWithABackgroundDoNotMakeAReflowedLineWrap) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("background-reflow", 27, 4,
                           {out("\x1b[48;2;10;20;30m\x1b[4;1Hline\n\nend\x1b[m"), resize(26, 5),
                            resize(12, 5), resize(30, 4)}));
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

// The generated corpus -------------------------------------------------------------------------

// Every generated transcript either agrees with tmux or is listed in known-differences.h with the
// cause of its difference; a listed one that agrees now fails too, so the list shrinks with each
// fix (remove its entries, and a cause left without any).

const KnownDifferingTranscript* knownDifference(bool resizes, unsigned seed) {
  for (const KnownDifferingTranscript& known : KNOWN_DIFFERING_TRANSCRIPTS) {
    if (known.resizes == resizes && known.seed == seed) return &known;
  }
  return nullptr;
}

const char* causeName(KnownDifference difference) {
  for (const KnownDifferenceReason& reason : KNOWN_DIFFERENCE_REASONS) {
    if (reason.difference == difference) return reason.name;
  }
  return "?";
}

void expectOnlyKnownDifferences(TmuxDriver& tmux, bool resizes) {
  std::map<std::string, int> perCause;
  int agreeing = 0;
  for (unsigned seed = 1; seed <= CORPUS_SIZE; seed++) {
    Outcome outcome = replay(tmux, generateTranscript(seed, resizes));
    const KnownDifferingTranscript* known = knownDifference(resizes, seed);
    if (outcome.firstDifference.empty()) {
      agreeing++;
      EXPECT_EQ(known, nullptr) << "generated-" << seed << (resizes ? " with" : " without")
                                << " resizes agrees with tmux now: remove it from "
                                   "known-differences.h (listed as "
                                << (known != nullptr ? causeName(known->difference) : "") << ")";
      continue;
    }
    if (known != nullptr) {
      perCause[causeName(known->difference)]++;
      if (getenv("REA_DIFF_VERBOSE") != nullptr) {
        std::cout
            << "known (" << causeName(known->difference) << ") "
            << (resizes ? "with resizes: " : "without resizes: ")
            << replay(tmux, generateTranscript(seed, resizes, true), outcome.step).firstDifference
            << std::endl;
      }
      continue;
    }
    // Piece by piece, the difference shows at the piece that made it.
    ADD_FAILURE()
        << "differs from tmux and is not in known-differences.h: "
        << (resizes ? "with resizes: " : "without resizes: ")
        << replay(tmux, generateTranscript(seed, resizes, true), outcome.step).firstDifference;
  }
  ::testing::Test::RecordProperty("agreeing", agreeing);
  for (const auto& [cause, count] : perCause)
    ::testing::Test::RecordProperty(cause, count);
  if (getenv("REA_DIFF_VERBOSE") != nullptr) {
    std::ostringstream summary;
    summary << agreeing << " of " << CORPUS_SIZE << " agree;";
    for (const auto& [cause, count] : perCause)
      summary << " " << cause << " " << count;
    std::cout << summary.str() << std::endl;
  }
}

TEST(RenderDiff, EveryKnownDifferenceHasAReasonAndATranscript) {
  std::set<std::pair<bool, unsigned>> seen;
  for (const KnownDifferenceReason& reason : KNOWN_DIFFERENCE_REASONS) {
    EXPECT_GT(strlen(reason.reason), 40u) << reason.name;
    bool used = false;
    for (const KnownDifferingTranscript& known : KNOWN_DIFFERING_TRANSCRIPTS)
      used = used || known.difference == reason.difference;
    EXPECT_TRUE(used) << reason.name << " lists no transcript any more: remove it";
  }
  for (const KnownDifferingTranscript& known : KNOWN_DIFFERING_TRANSCRIPTS) {
    EXPECT_TRUE(seen.insert({known.resizes, known.seed}).second) << "listed twice: " << known.seed;
    EXPECT_STRNE(causeName(known.difference), "?") << known.seed;
    EXPECT_GE(known.seed, 1u);
    EXPECT_LE(known.seed, CORPUS_SIZE);
  }
}

TEST(RenderDiff, GeneratedCorpusWithoutResizes) {
  REQUIRE_TMUX();
  expectOnlyKnownDifferences(*tmux, false);
}

TEST(RenderDiff, GeneratedCorpusWithResizes) {
  REQUIRE_TMUX();
  expectOnlyKnownDifferences(*tmux, true);
}

// Recorded real programs (tests/data/render-diff)
// ---------------------------------------------------

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
    Outcome outcome = replay(*tmux, loadTranscript(dir + "/" + file));
    EXPECT_EQ(outcome.firstDifference, "") << file;
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
