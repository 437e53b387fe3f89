#pragma once
// The generated transcripts (transcript.h) that still differ from tmux 3.3a, each with the cause
// of its first difference, and each cause with its reason (issue 24). corpus-test.c++ fails
// when a transcript differs that is not listed here, and when a listed one agrees now: a fix
// removes its transcripts from the list, and a new difference has to be understood first.
//
// How each was classified: the first difference of the transcript, found at the piece of its
// step that made it (REA_DIFF_VERBOSE=1 prints it); for a resize, whether clearing both histories
// (ED 3) right before it makes the two agree (then it is TMUX_KEEPS_REGION_LINES_IN_HISTORY;
// otherwise the difference left after that ablation decides). Where xterm.js (SPEC B §6.11's
// reference) and xterm do what tmux does, the Renderer was changed instead (screen-corrections.h
// and the commits of issue 24).
//
// xterm.js's answer: every transcript also says what xterm.js 6.0.0 (@xterm/headless, run by
// scripts/xtermjs-oracle.sh with glibc's double widths, tests/unit/render-diff/README.md) shows
// at that first difference (XtermJs); xtermjs-oracle-test.c++ checks these when the oracle is
// installed. AGREES_WITH_TMUX marks a difference where the Renderer is the odd one out.

#include <cstdint>

namespace rea::test {

enum class KnownDifference : uint8_t {
  TMUX_IGNORES_CHT,
  TMUX_REVERSE_WRAPS_BACKSPACE,
  WIDE_GLYPH_HALF,
  TMUX_IGNORES_1049L_ON_NORMAL,
  TMUX_INSERT_MODE_AT_WRAP,
  TMUX_COMBINING_AT_THE_EDGE,
  TMUX_KEEPS_REGION_LINES_IN_HISTORY,
  TMUX_MOVES_A_REFLOWED_CURSOR,
  PENDING_WRAP_AT_A_RESIZE,
  TMUX_ALTERNATE_CURSOR_PAST_THE_EDGE,
  TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
  TMUX_KEEPS_THE_JOIN_ON_THE_WRAPPING_ROW,
  RESIZE_UNRESOLVED,
};

// What xterm.js 6.0.0 shows at a transcript's first difference from tmux.
enum class XtermJs : uint8_t {
  AGREES_WITH_REA,         // the same screen as the Renderer's: the difference is tmux's
  AGREES_WITH_TMUX,        // the same screen as tmux's: the Renderer is wrong here
  SAME_TEXT_OTHER_CURSOR,  // the Renderer's text, but its cursor differs from both
  DIFFERS,                 // all three differ in the text
  PARTED_EARLIER,          // xterm.js differed from the Renderer at an earlier step already
};

struct KnownDifferenceReason {
  KnownDifference difference;
  const char* name;
  const char* reason;
};

inline constexpr KnownDifferenceReason KNOWN_DIFFERENCE_REASONS[] = {
    {KnownDifference::TMUX_IGNORES_CHT, "TMUX_IGNORES_CHT",
     "tmux 3.3a does not implement CHT (CSI I): its cursor stays; xterm and xterm.js move it to "
     "the next tab stop, as libvterm does."},
    {KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, "TMUX_REVERSE_WRAPS_BACKSPACE",
     "BS at column 0 of a row that autowrap continued: tmux moves to the end of the row above; "
     "xterm and xterm.js do so only in reverse-wraparound mode (?45), which is off by default."},
    {KnownDifference::WIDE_GLYPH_HALF, "WIDE_GLYPH_HALF",
     "An erase, delete, insert or overwrite that cuts a wide glyph in half: tmux keeps the other "
     "half as padding (capture-pane prints nothing for it, and a later write over the padding "
     "erases its neighbour); the Renderer empties both halves, as xterm does."},
    {KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, "TMUX_IGNORES_1049L_ON_NORMAL",
     "?1049l while the normal screen is active: tmux does nothing; xterm and xterm.js restore "
     "the saved cursor, as the Renderer does."},
    {KnownDifference::TMUX_INSERT_MODE_AT_WRAP, "TMUX_INSERT_MODE_AT_WRAP",
     "Insert mode (IRM): the character autowrap carries to the next row overwrites there in "
     "tmux; xterm.js (and the Renderer) insert it, shifting the rest of that row right."},
    {KnownDifference::TMUX_COMBINING_AT_THE_EDGE, "TMUX_COMBINING_AT_THE_EDGE",
     "A combining mark after a character in the last column with autowrap off: tmux shows it "
     "apart from its base; the Renderer joins them, as xterm does."},
    {KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, "TMUX_KEEPS_REGION_LINES_IN_HISTORY",
     "tmux puts a line scrolled out of a scroll region that does not start at the top row into "
     "its history (grid_scroll_history_region) and a later resize brings it back; xterm and "
     "xterm.js keep scrollback only from regions at the top, as the Renderer does. Clearing "
     "both histories (ED 3) before the resize makes these agree. In 191 xterm.js 6.0.0 shows "
     "tmux's screen there (AGREES_WITH_TMUX) for another reason: with no scrollback, a narrower "
     "reflow that needs more rows keeps the top rows in xterm.js (Buffer._reflowSmaller drops "
     "rows off the bottom) where the Renderer scrolls them into scrollback; following it would "
     "part from tmux in generated-73, 133 and 219, which corrections-test.c++ checks."},
    {KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, "TMUX_MOVES_A_REFLOWED_CURSOR",
     "Only the cursor differs after a resize that reflowed: tmux moves a cursor that stands past "
     "its line's text to the text's end or to column 0, and homes it (0,0) when the reflow puts "
     "its line into history; the Renderer keeps its place in its line, column included. xterm.js "
     "6.0.0 agrees with rea in 6 of these; in 3 (SAME_TEXT_OTHER_CURSOR) it keeps the cursor's "
     "column (clamped to the last one) and moves only its row by the rows the reflow added or "
     "removed up to it, a third answer the Renderer does not follow: the cursor would no longer "
     "stand after the text the program wrote last (issue 24's case 3); in the other 4 xterm.js "
     "had parted earlier or shows other text."},
    {KnownDifference::PENDING_WRAP_AT_A_RESIZE, "PENDING_WRAP_AT_A_RESIZE",
     "A cursor right after the last glyph of a row the reflow filled exactly: tmux reports it past "
     "the edge (a wrap pending), the Renderer on the last column or at the start of the next "
     "row. In both xterm.js 6.0.0 had parted from the Renderer at an earlier resize."},
    {KnownDifference::TMUX_ALTERNATE_CURSOR_PAST_THE_EDGE, "TMUX_ALTERNATE_CURSOR_PAST_THE_EDGE",
     "Narrowing the alternate screen: tmux leaves its cursor past the new last column (it is "
     "clamped at the next write); the Renderer clamps it at once, as xterm does."},
    {KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, "TMUX_PULLS_HISTORY_INTO_FREED_ROWS",
     "A resize that frees rows (more rows, or a wider reflow needing fewer) while the cursor is "
     "above the bottom row: tmux pulls its scrolled history back onto the screen; xterm.js 6.0.0 "
     "(Buffer.resize) pulls history only while the cursor is on the bottom row and otherwise adds "
     "blank rows at the bottom, and so does the Renderer. xterm.js 6.0.0 agrees with rea on the "
     "text in 25 of these (AGREES_WITH_REA or SAME_TEXT_OTHER_CURSOR: its cursor column differs, "
     "see TMUX_MOVES_A_REFLOWED_CURSOR)."},
    {KnownDifference::TMUX_KEEPS_THE_JOIN_ON_THE_WRAPPING_ROW,
     "TMUX_KEEPS_THE_JOIN_ON_THE_WRAPPING_ROW",
     "tmux keeps an autowrap join on the row that wrapped, xterm.js (isWrapped) and the Renderer "
     "on the row that continues it, so a scroll region that moves rows between them, or a whole-"
     "row erase, breaks different joins and the next reflow joins different rows. xterm.js 6.0.0 "
     "agrees with rea on the text in all three."},
    {KnownDifference::RESIZE_UNRESOLVED, "RESIZE_UNRESOLVED",
     "First differences at a resize not reduced to one cause, all three differing: in 136 a grow "
     "with the cursor on the bottom row brings back a different number of history rows in each; "
     "in 208 a shrink to fewer rows than the cursor's wrapped line spans, the cursor on its first "
     "row, shows a different slice of the line in each; in 226 (a wider reflow) xterm.js keeps "
     "the blank a wide glyph left at the old edge as the Renderer does (tmux drops it) but pulls "
     "one more history row back; in 5 and 190 xterm.js had parted from the Renderer at an earlier "
     "output step, so it does not decide between the other two."},
};

struct KnownDifferingTranscript {
  bool resizes;  // generateTranscript(seed, resizes)
  unsigned seed;
  KnownDifference difference;
  XtermJs xtermjs;
};

inline constexpr KnownDifferingTranscript KNOWN_DIFFERING_TRANSCRIPTS[] = {
    {false, 1, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::AGREES_WITH_REA},
    {false, 2, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::PARTED_EARLIER},
    {false, 4, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {false, 10, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 20, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {false, 21, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 22, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 29, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {false, 36, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 38, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::AGREES_WITH_REA},
    {false, 40, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 45, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::PARTED_EARLIER},
    {false, 51, KnownDifference::TMUX_COMBINING_AT_THE_EDGE, XtermJs::PARTED_EARLIER},
    {false, 53, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 60, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::AGREES_WITH_REA},
    {false, 63, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 64, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 66, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {false, 67, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 76, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 79, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 83, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::AGREES_WITH_REA},
    {false, 86, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 87, KnownDifference::TMUX_IGNORES_CHT, XtermJs::PARTED_EARLIER},
    {false, 104, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {false, 111, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 115, KnownDifference::WIDE_GLYPH_HALF, XtermJs::PARTED_EARLIER},
    {false, 116, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 120, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 123, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 131, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::AGREES_WITH_REA},
    {false, 134, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 138, KnownDifference::WIDE_GLYPH_HALF, XtermJs::PARTED_EARLIER},
    {false, 139, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::AGREES_WITH_REA},
    {false, 141, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 151, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 164, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 166, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 169, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 170, KnownDifference::TMUX_IGNORES_CHT, XtermJs::DIFFERS},
    {false, 177, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 179, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 182, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 193, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {false, 194, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 196, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::AGREES_WITH_REA},
    {false, 202, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {false, 203, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 205, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 210, KnownDifference::TMUX_IGNORES_CHT, XtermJs::PARTED_EARLIER},
    {false, 211, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 212, KnownDifference::WIDE_GLYPH_HALF, XtermJs::PARTED_EARLIER},
    {false, 213, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::AGREES_WITH_REA},
    {false, 223, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 229, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 233, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {false, 238, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 1, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::AGREES_WITH_REA},
    {true, 2, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::PARTED_EARLIER},
    {true, 4, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {true, 5, KnownDifference::RESIZE_UNRESOLVED, XtermJs::PARTED_EARLIER},
    {true, 7, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 9, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 10, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 11, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 12, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::DIFFERS},
    {true, 13, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 19, KnownDifference::TMUX_ALTERNATE_CURSOR_PAST_THE_EDGE, XtermJs::DIFFERS},
    {true, 20, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {true, 21, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 22, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 27, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 30, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 31, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 32, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 36, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 37, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 38, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::AGREES_WITH_REA},
    {true, 40, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 41, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 42, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 43, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 45, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::PARTED_EARLIER},
    {true, 47, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::DIFFERS},
    {true, 51, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::PARTED_EARLIER},
    {true, 52, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 53, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 57, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 58, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::DIFFERS},
    {true, 59, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 60, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::AGREES_WITH_REA},
    {true, 63, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 64, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 65, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::DIFFERS},
    {true, 66, KnownDifference::TMUX_INSERT_MODE_AT_WRAP, XtermJs::AGREES_WITH_REA},
    {true, 68, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::AGREES_WITH_REA},
    {true, 71, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 75, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 76, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 77, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::PARTED_EARLIER},
    {true, 80, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 83, KnownDifference::TMUX_IGNORES_1049L_ON_NORMAL, XtermJs::AGREES_WITH_REA},
    {true, 85, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::AGREES_WITH_REA},
    {true, 86, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::AGREES_WITH_REA},
    {true, 87, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::PARTED_EARLIER},
    {true, 88, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 89, KnownDifference::TMUX_KEEPS_THE_JOIN_ON_THE_WRAPPING_ROW, XtermJs::AGREES_WITH_REA},
    {true, 90, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::DIFFERS},
    {true, 91, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 93, KnownDifference::TMUX_KEEPS_THE_JOIN_ON_THE_WRAPPING_ROW, XtermJs::AGREES_WITH_REA},
    {true, 96, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::AGREES_WITH_REA},
    {true, 98, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::AGREES_WITH_REA},
    {true, 100, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 102, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 104, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 106, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 109, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 110, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::PARTED_EARLIER},
    {true, 111, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 113, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 114, KnownDifference::TMUX_KEEPS_THE_JOIN_ON_THE_WRAPPING_ROW,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 115, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 116, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 118, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 120, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 123, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::PARTED_EARLIER},
    {true, 128, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 131, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 134, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 136, KnownDifference::RESIZE_UNRESOLVED, XtermJs::DIFFERS},
    {true, 138, KnownDifference::WIDE_GLYPH_HALF, XtermJs::PARTED_EARLIER},
    {true, 139, KnownDifference::PENDING_WRAP_AT_A_RESIZE, XtermJs::PARTED_EARLIER},
    {true, 141, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 142, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 145, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::DIFFERS},
    {true, 147, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::PARTED_EARLIER},
    {true, 148, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 151, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 155, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 158, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 160, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::AGREES_WITH_REA},
    {true, 161, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::PARTED_EARLIER},
    {true, 162, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 165, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::PARTED_EARLIER},
    {true, 166, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 167, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::PARTED_EARLIER},
    {true, 169, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 170, KnownDifference::TMUX_IGNORES_CHT, XtermJs::DIFFERS},
    {true, 173, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 175, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::PARTED_EARLIER},
    {true, 177, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 179, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 180, KnownDifference::PENDING_WRAP_AT_A_RESIZE, XtermJs::PARTED_EARLIER},
    {true, 182, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 186, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::PARTED_EARLIER},
    {true, 190, KnownDifference::RESIZE_UNRESOLVED, XtermJs::PARTED_EARLIER},
    {true, 191, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_TMUX},
    {true, 193, KnownDifference::TMUX_IGNORES_CHT, XtermJs::AGREES_WITH_REA},
    {true, 196, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::AGREES_WITH_REA},
    {true, 197, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 198, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::DIFFERS},
    {true, 199, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::AGREES_WITH_REA},
    {true, 203, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 204, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 207, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 208, KnownDifference::RESIZE_UNRESOLVED, XtermJs::DIFFERS},
    {true, 210, KnownDifference::TMUX_IGNORES_CHT, XtermJs::PARTED_EARLIER},
    {true, 211, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY, XtermJs::DIFFERS},
    {true, 212, KnownDifference::WIDE_GLYPH_HALF, XtermJs::PARTED_EARLIER},
    {true, 213, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::AGREES_WITH_REA},
    {true, 215, KnownDifference::TMUX_MOVES_A_REFLOWED_CURSOR, XtermJs::AGREES_WITH_REA},
    {true, 216, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 217, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 218, KnownDifference::TMUX_REVERSE_WRAPS_BACKSPACE, XtermJs::PARTED_EARLIER},
    {true, 220, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 221, KnownDifference::TMUX_KEEPS_REGION_LINES_IN_HISTORY,
     XtermJs::SAME_TEXT_OTHER_CURSOR},
    {true, 222, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::AGREES_WITH_REA},
    {true, 223, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 226, KnownDifference::RESIZE_UNRESOLVED, XtermJs::DIFFERS},
    {true, 229, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 233, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 236, KnownDifference::TMUX_PULLS_HISTORY_INTO_FREED_ROWS, XtermJs::DIFFERS},
    {true, 238, KnownDifference::WIDE_GLYPH_HALF, XtermJs::AGREES_WITH_REA},
    {true, 239, KnownDifference::TMUX_ALTERNATE_CURSOR_PAST_THE_EDGE, XtermJs::DIFFERS},
};

}  // namespace rea::test
