#pragma once
// A transcript and the screens after each of its steps, written for other oracles: BASE.json (the
// format of tests/data/render-diff/*.json), BASE.rea.txt (the Renderer) and BASE.tmux.txt, each
// screen as scripts/xtermjs-oracle/xtermjs-oracle.js prints xterm.js's:
//
//   step N
//   cursor X,Y normal|alternate
//   |line|        (one per visible row, trailing spaces trimmed)
//
// scripts/xtermjs-oracle/compare.js reads them and adds BASE.xtermjs.txt.
//
// Errors: none reported; a file that cannot be written shows as missing to its reader.

#include "tests/unit/render-diff/replay.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace rea::test {

template <typename Screen>
std::string stepScreen(size_t step, const std::vector<std::string>& lines, const Screen& screen) {
  std::string text = "step " + std::to_string(step) + "\ncursor " + std::to_string(screen.cursorX) +
                     "," + std::to_string(screen.cursorY) +
                     (screen.alternate ? " alternate\n" : " normal\n");
  for (const std::string& line : lines)
    text += "|" + rtrim(line) + "|\n";
  return text;
}

inline std::string dumpName(bool resizes, unsigned seed) {
  return std::string(resizes ? "with" : "without") + "-resizes-" + std::to_string(seed);
}

inline void dumpTranscript(TmuxDriver& tmux, const Transcript& transcript,
                           const std::string& base) {
  nlohmann::json json = {{"columns", transcript.columns}, {"rows", transcript.rows}};
  json["steps"] = nlohmann::json::array();
  std::string ours, theirs;
  Renderer renderer(transcript.columns, transcript.rows, SCROLLBACK);
  tmux.start(transcript.columns, transcript.rows);
  for (size_t i = 0; i < transcript.steps.size(); i++) {
    const TranscriptStep& step = transcript.steps[i];
    if (step.columns > 0) {
      json["steps"].push_back({{"resize", {step.columns, step.rows}}});
      renderer.resize(step.columns, step.rows);
      tmux.resize(step.columns, step.rows);
    } else {
      json["steps"].push_back({{"output", step.output}});
      renderer.feed(step.output);
      tmux.feed(step.output);
    }
    RenderedScreen rendered = renderer.snapshot();
    ours += stepScreen(i, rendered.lines, rendered);
    TmuxScreen captured = tmux.capture();
    theirs += stepScreen(i, captured.lines, captured);
  }
  std::ofstream(base + ".json") << json.dump() << "\n";
  std::ofstream(base + ".rea.txt") << ours;
  std::ofstream(base + ".tmux.txt") << theirs;
}

}  // namespace rea::test
