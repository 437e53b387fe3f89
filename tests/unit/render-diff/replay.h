#pragma once
// What the differential renderer tests share (render-diff-test.c++, corrections-test.c++,
// corpus-test.c++): one tmux server for the whole program, and replay(), which feeds a transcript
// to our Renderer and to tmux step by step and reports the first step after which the visible
// text (trailing spaces trimmed), the cursor or the active buffer differ.

#include "helpers/pty/screen-renderer.h"
#include "tests/unit/render-diff/tmux-driver.h"
#include "tests/unit/render-diff/transcript.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace rea::test {

using rea::helper::RenderedScreen;
using rea::helper::Renderer;

inline constexpr int SCROLLBACK = 1000;
inline constexpr unsigned CORPUS_SIZE = 240;

inline TmuxDriver* sharedTmux() {
  // One server for the whole program: starting tmux costs more than a transcript.
  static std::unique_ptr<TmuxDriver> driver;
  if (!driver && TmuxDriver::available()) driver = std::make_unique<TmuxDriver>(SCROLLBACK);
  return driver.get();
}

inline std::string rtrim(std::string line) {
  while (!line.empty() && line.back() == ' ')
    line.pop_back();
  return line;
}

inline std::string printable(const std::string& bytes) {
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
inline std::string difference(const RenderedScreen& ours, const TmuxScreen& theirs) {
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

inline Outcome replay(TmuxDriver& tmux, const Transcript& transcript, int piecesOf = -1) {
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

inline Transcript single(const std::string& name, int columns, int rows,
                         std::vector<TranscriptStep> steps) {
  return Transcript{name, columns, rows, std::move(steps)};
}

inline TranscriptStep out(std::string bytes) {
  return TranscriptStep{std::move(bytes), 0, 0};
}

inline TranscriptStep resize(int columns, int rows) {
  return TranscriptStep{"", columns, rows};
}

inline void expectSame(TmuxDriver& tmux, const Transcript& transcript) {
  Outcome outcome = replay(tmux, transcript);
  EXPECT_EQ(outcome.firstDifference, "");
}

}  // namespace rea::test
