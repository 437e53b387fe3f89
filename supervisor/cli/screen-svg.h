#pragma once
// One rendered frame as an SVG picture (`rea export-screen`), for pull requests and docs: the
// frame's `serialized_state` (which carries the colours and attributes that `lines` drops) is
// replayed into a fresh libvterm screen of the frame's size, and each cell becomes SVG text in
// its colours (bold, italic, underline, strike and reverse kept), on a dark terminal background
// with a monospace grid. Deterministic: the same frame gives the same bytes.
//
// Errors: none thrown; a state libvterm cannot fully parse still gives the picture of what it
// did parse (the capture was validated, so this is not expected).

#include <string>

#include "evidence/capture.h"

namespace rea::supervisor {

std::string renderScreenSvg(const evidence::RenderedFrame& frame);

}  // namespace rea::supervisor
