#pragma once
// Sequences that libvterm 0.1.4's state layer carries out differently from xterm, xterm.js and
// tmux (issue 24), and what the Renderer gives libvterm instead. The Renderer cancels such a
// sequence in libvterm just before its final byte (CAN, as for an overlong one) and writes the
// replacement at its place in the stream:
//  * DECSTBM (CSI t;b r) whose bottom is not below its top (after defaults and clamping): xterm
//    and tmux ignore it (the region and the cursor stay); libvterm sets a one-row region, or
//    resets the region and homes the cursor.
//  * CUU, CUD, CPL, CNL from inside the scroll region: xterm and tmux stop at the region's margin;
//    libvterm moves on to the screen's edge. The replacement is VPA to the row where xterm stops
//    (CR first for CPL/CNL), which, like the original, also ends a pending wrap.
//  * CSI s and CSI u (SCOSC, SCORC) while DECLRMM (?69) is off: libvterm sets left/right margins
//    and homes the cursor for CSI s and ignores CSI u; xterm and tmux save and restore the cursor
//    (DECSC, DECRC are the replacement; the Renderer then checks a restored cursor as usual).
//  * ?1049h, ?1047h, ?47h (alone in their sequence) while the alternate screen is active:
//    libvterm erases it and saves the cursor again; xterm.js and tmux keep both.
//
// Errors: none.

#include "helpers/pty/screen-modes.h"
#include "helpers/pty/screen-scanner.h"

#include <optional>
#include <string>

namespace rea::helper {

std::optional<std::string> correctedSequence(const ControlSequence& sequence, int cursorRow,
                                             bool alternate, const TerminalModes& modes);
// The bytes libvterm gets instead of `sequence` (possibly none), or nullopt when libvterm
// carries it out as xterm does. `cursorRow` is libvterm's cursor row (0-based, from the top of
// the screen) before the sequence, `alternate` whether the alternate screen is active, `modes`
// the modes before it.

bool mayNeedCorrection(const ControlSequence& sequence);
// A cheap first test: only these sequences can have a correction (the Renderer then brings
// libvterm up to the sequence before asking correctedSequence).

}  // namespace rea::helper
