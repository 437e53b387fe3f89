#pragma once
// The two text forms of a rendered frame (B §6.11, A11): `lines` and `serialized_state`.
//
// lines: one string per visible row of the active buffer, untrimmed: each cell's glyph (with its
// combining marks), an empty cell as one space, the spacer half of a wide glyph skipped; then
// padded with spaces to `columns` UTF-16 code units (so a row with wide glyphs has fewer
// characters, and combining marks can make it longer). No attributes.
//
// serialized_state (this project's encoding, A11): bytes that, written to a fresh emulator of the
// same size and scrollback limit, reproduce the scrollback, the visible rows, the cursor, the pen
// and the tracked modes (screen-modes.h). Deterministic: the same screen state always gives the
// same bytes. In order:
//   1. Normal buffer rows, oldest scrollback row first, joined by CR LF. If there is scrollback,
//      every visible row is written (so exactly the scrollback rows scroll off again); without
//      scrollback, trailing rows that encode to nothing are left out.
//      A row: left to right, each glyph in UTF-8, preceded by `ESC[0;…m` (the complete pen:
//      1 bold, 3 italic, 4/21/4:3 underline single/double/curly, 5 blink, 7 reverse, 9 strike, 53
//      overline, 10+n font, 30–37/90–97/38;5;n/38;2;r;g;b foreground, same with 40/100/48
//      background) whenever it differs from the previous cell's, and by `ESC[1"q` / `ESC[0"q` where
//      the DECSCA protection changes; a run of n empty cells is `ESC[nC`, preceded by the run's pen
//      and `ESC[nX` if that pen is not the default, and left out at the end of the row when its
//      pen is the default; a combining mark that libvterm printed on its own (width 0) is
//      written as a space, `ESC[nG` back to its column, the mark, then `ESC[1C` if more follows;
//      a row whose only glyph is a wide one filling its two columns ends with `ESC[1C` `ESC[1D`
//      (clears the wrap libvterm leaves pending in column 0, which a CR does not clear).
//      Each row starts from the default pen and ends with `ESC[0m` (and
//      `ESC[0"q`) if it changed them, so rows encode independently (scrollback rows are encoded
//      once and cached) and a CR LF never scrolls in a coloured row.
//   2. If the alternate buffer is active: relative cursor moves to where the normal buffer's
//      cursor was when the alternate buffer was entered, `ESC[?1049h` `ESC[H`, then the
//      alternate rows as in 1 (no scrollback; trailing empty rows left out).
//   3. `ESC[0;…m` for the current pen, if it is not the default.
//   4. The margins and scroll region (TerminalModes::appendRegion), then all other non-default
//      modes except origin mode (appendOtherModes).
//   5. The cursor: relative moves `ESC[nA`/`ESC[nB` then `ESC[nD`/`ESC[nC` from where step 1 or 2
//      left it (nothing if it is already there). If step 4 emitted a region or margins, or origin
//      mode is set, instead `ESC[row;colH`; with origin mode `ESC[?6h` then `ESC[row;colH`
//      relative to the region, or, if the cursor is outside the region, `ESC[row;colH` `ESC 7`
//      `ESC[?6h` `ESC 8` (libvterm keeps such a position only until the next CSI).
// On an 80×24 screen after `prompt> ` this is exactly `prompt> `; after `prompt> ` +
// `input:answer unicode:雪` CR LF it is that text then `ESC[1B` `ESC[31D` (B §6.11's examples).
//   6. If a wrap is pending (the cursor waits past a glyph at the right edge: `wrapPending`, with
//      `cursor` on that glyph), origin mode is off and the glyph's DECSCA protection is the
//      current one: the glyph again, in its pen (then the current pen), which leaves the wrap
//      pending once more.
// Not reproduced: a pending wrap otherwise, the saved cursor, tab stops, character sets, the title;
// on a one-column screen, the rows (every glyph leaves a wrap pending in column 0 there, and a wide
// glyph starts a new row).
//
// Errors: none.

#include "helpers/pty/screen-model.h"
#include "helpers/pty/screen-modes.h"

#include <cstddef>
#include <string>
#include <vector>

namespace rea::helper {

struct CursorPosition {
  int row;
  int col;
};

std::vector<std::string> renderLines(const ScreenModel& model);
// B §6.11 `lines` of the active buffer.

bool serializeScreen(ScreenModel& model, const TerminalModes& modes, CursorPosition cursor,
                     bool wrapPending, CursorPosition normalCursor, size_t limit, std::string& out);
// Writes serialized_state to `out` and returns true, or returns false (leaving `out`
// unspecified) without assembling it if it would take more than `limit` bytes. `normalCursor` is
// the normal buffer's cursor when the alternate buffer was entered (used only while it is
// active). Caches scrollback row encodings in the model's rows (hence the non-const model).

void appendPen(std::string& out, const Pen& pen);
// `ESC[0;…m` for the pen, as in step 1 above (`ESC[0m` for the default pen).

}  // namespace rea::helper
