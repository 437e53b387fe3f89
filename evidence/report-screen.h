#pragma once
// What a capture showed on its terminal at one moment, for the comparison report
// (evidence/report-html.h): the last rendered frame at or before the moment when the capture
// has one, else a plain-text screen rebuilt from its raw frames. Pure functions of the capture;
// owns nothing.
//
// Errors: none thrown (any capture that passed import yields a screen).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/capture.h"

namespace rea::evidence {

struct ReportScreen {
  enum class Source {
    RENDERED,  // `frame` is the capture's own rendered frame (SPEC B §6.11, A11)
    RAW,       // no rendered frame qualified: `lines` rebuilt from the raw frames
  };
  Source source = Source::RAW;

  const RenderedFrame* frame = nullptr;
  // RENDERED: the frame shown (points into the capture, which must outlive this screen).

  std::vector<std::string> lines;
  // The text rows shown: the frame's `lines`, or the last rows of the rebuilt raw text.

  size_t rawFrameCount = 0;
  // RAW: how many raw frames were concatenated; `rawLinesDropped` rows scrolled off the top.
  size_t rawLinesDropped = 0;
};

ReportScreen screenAt(const Capture& capture, std::optional<int64_t> momentMs);
// The screen at `momentMs` (the last rendered frame with at_ms ≤ momentMs), or at the end of
// the capture (its last rendered frame) when `momentMs` is null. Without such a frame: the raw
// frames with at_ms ≤ momentMs (all of them when null) concatenated, passed through
// plainTerminalText(), and only the last `manifest.scenario.terminal.rows` lines kept (24 when
// the scenario does not say), as a terminal would scroll.

std::vector<std::string> plainTerminalText(std::string_view output);
// The lines a reader would see of a terminal output stream, without a terminal emulator:
// escape sequences (CSI, OSC, DCS/SOS/PM/APC strings, two- and three-byte ESC sequences) and
// other C0/C1 controls are removed; LF (or CR LF) ends a line; a CR not followed by LF starts
// the line over (what follows replaces it, as progress output intends); BS removes the
// previous character; TAB is kept. Invalid UTF-8 becomes U+FFFD. The last line is kept even
// when empty, so "a\n" is {"a", ""} (the cursor sits on the empty line).

}  // namespace rea::evidence
