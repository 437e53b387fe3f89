#pragma once
// PlainText: whether libvterm 0.1.4 would write the printable ASCII bytes (0x20-0x7e) of the
// ground state as those very characters, one narrow, unprotected glyph per column, each
// overwriting its cell, with a cursor move (CUF) meaning the same as printing them away from the
// right edge. The Renderer then writes such a run into the ScreenModel itself and moves
// libvterm's cursor past it (Renderer::Impl::onGround): most output is such text, and libvterm's
// per-character decoding and width lookups cost more than the rest of the rendering.
//
// What it follows, as libvterm carries it out (checked against its source and by
// screen-plain-text-test.c++):
//  * The character set. A byte below 0x80 is decoded with the set invoked into GL (G0 unless
//    SO, LS2 or LS3 invoked another), or, for the one character after SS2/SS3 (ESC N, ESC O),
//    with G2/G3. In UTF-8 mode every set starts as the UTF-8 decoder, which maps ASCII to
//    itself; SCS (ESC ( ) * + and a final) designates one: 'B' (US-ASCII) maps ASCII to itself,
//    '0' (DEC special graphics) and 'A' (UK) do not. A final other than 'B' counts as not plain
//    here even where libvterm ignores it (erring towards the general path).
//  * Insert mode (IRM, CSI 4 h/l; libvterm acts on the first parameter only): glyphs push the
//    row right.
//  * DECSCA (CSI 1 " q on; 0 or 2 off; other values leave it): glyphs are protected.
//  * Origin mode (CSI ? 6 h/l, likewise): CUF is then confined to the scroll region and margins.
// RIS resets all of them; DECSTR resets none (libvterm 0.1 rejects its '!' before acting on it),
// and neither do DECSC/DECRC. These are libvterm's own states, which TerminalModes (xterm's
// view, for serialized_state) need not equal.
//
// Errors: none.

#include <cstdint>

#include "helpers/pty/screen-scanner.h"

namespace rea::helper {

class PlainText {
 public:
  bool holds() const {
    return (plainSets >> gl & 1) != 0 && !singleShift && !insert && !protecting && !origin;
  }
  // Printable ASCII in the ground state would now be written as itself (see above).

  void onSequence(const ControlSequence& sequence);
  // Every sequence the scanner reports, in stream order.

  void onShift(unsigned char control);
  // SO (0x0e) or SI (0x0f), in the ground state or inside a sequence.

  void onText() { singleShift = false; }
  // A byte libvterm takes as text (0x20-0x7e, or 0x80 and above) in the ground state: a single
  // shift applies to the character it starts, and only to that one.

 private:
  uint8_t plainSets = 0x0f;  // bit n: Gn maps ASCII to itself
  uint8_t gl = 0;            // the set invoked into GL
  bool singleShift = false;
  bool insert = false;
  bool protecting = false;
  bool origin = false;
};

}  // namespace rea::helper
