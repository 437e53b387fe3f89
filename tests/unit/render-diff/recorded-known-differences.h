#pragma once
// Recordings of real programs (tests/data/render-diff) known to differ from tmux: at which steps
// and why. RecordedProgramsMatchTmux (render-diff-test.c++) replays every recording to its end
// and expects every other recording to match tmux at every step, and each one listed here to
// differ at exactly the steps listed: a new difference fails, and so does a fix, which should
// shorten or remove its entry.

#include <string_view>

namespace rea::test {

struct RecordedKnownDifference {
  std::string_view file;            // in tests/data/render-diff
  std::string_view differingSteps;  // indices into the transcript's merged steps, e.g. "3 4 5"
  std::string_view reason;
};

inline constexpr RecordedKnownDifference RECORDED_KNOWN_DIFFERENCES[] = {
    // A narrower alternate screen with the cursor right of the new edge: tmux keeps the cursor's
    // column (#{cursor_x} 81 of 70 columns) until the next output moves it; xterm, xterm.js and
    // our renderer clamp it to the last column. Smallest case: 10x3, ESC[?1049h ESC[3;10H,
    // resize to 5x3: tmux 9,2, we 4,2. The screens' text agrees.
    {"htop.json", "15", "tmux keeps the cursor right of the edge of a narrowed alternate screen"},
    {"watch.json", "1", "tmux keeps the cursor right of the edge of a narrowed alternate screen"},
};

inline const RecordedKnownDifference* recordedKnownDifference(std::string_view file) {
  for (const RecordedKnownDifference& known : RECORDED_KNOWN_DIFFERENCES) {
    if (known.file == file) return &known;
  }
  return nullptr;
}

}  // namespace rea::test
