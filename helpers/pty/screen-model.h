#pragma once
// ScreenModel: the renderer's screen buffers, written through the same operations libvterm's
// state layer reports (putglyph, erase, scrollrect, moverect, pen changes, alternate screen,
// resize), so the Renderer can forward each callback here unchanged. It owns the normal buffer
// (scrollback ring + visible rows), the alternate buffer (visible rows, no scrollback), the
// current pen and the combining-character clusters.
//
// Semantics follow libvterm 0.1.4's own screen layer (our oracle in the tests), except for
// resizes (reflow, shrinking at the cursor: issue 24, checked against tmux) and these
// deliberate differences: a wide glyph is never left in half (the other half is emptied, as
// xterm does), a glyph keeps at most MAX_CLUSTER code points, and cells that a resize adds are
// empty with the default pen (libvterm gives them the current pen).
//
// Scrollback: rows scrolled off the top of a full-width region that starts at row 0 of the
// normal buffer (LF at the bottom, SU, DL at the top row) enter scrollback; at most `scrollback`
// rows are kept, the oldest are dropped. A full-screen scroll is O(1) (RowRing); a partial
// region moves rows, not cells.
//
// Errors: none thrown. Coordinates come from libvterm and are trusted to be on screen; they are
// clamped anyway so a bad rect cannot write outside the buffers.

#include "helpers/pty/screen-cell.h"
#include "helpers/pty/screen-ring.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rea::helper {

struct ScreenRect {
  int startRow;
  int endRow;  // exclusive
  int startCol;
  int endCol;  // exclusive
};

class ScreenModel {
 public:
  static constexpr size_t MAX_CLUSTER = 16;
  // A glyph with more code points (a base with a long run of combining marks) keeps the first
  // MAX_CLUSTER; this bounds memory and the cost of re-combining on every chunk.

  ScreenModel(int columns, int rows, int scrollback);
  // Preconditions (checked by Renderer): columns, rows >= 1, scrollback >= 0.

  // Writes, in libvterm state-callback terms ---------------------------------------------------

  void putGlyph(const uint32_t* chars, int width, int row, int col, bool protectedCell) {
    // Inline for the common case: one code point on the screen.
    if (chars[0] != 0 && chars[1] == 0 && chars[0] < CLUSTER_BIT && row >= 0 && row < height &&
        col >= 0 && col < cols) {
      rowOf(*active, row).putGlyph(col, width, chars[0], currentPen, protectedCell, cols);
    } else {
      putCluster(chars, width, row, col, protectedCell);
    }
  }
  // `chars` is 0-terminated (base then combining marks); the glyph takes the current pen.

  void putAscii(int row, int col, std::string_view text) {
    // Printable ASCII (0x20-0x7e) as narrow, unprotected glyphs from `col` on, as putGlyph would
    // write them one by one. The caller keeps them on the row.
    if (row < 0 || row >= height || col < 0 || col + static_cast<int>(text.size()) > cols) return;
    Row& target = rowOf(*active, row);
    for (size_t i = 0; i < text.size(); i++) {
      target.putGlyph(col + static_cast<int>(i), 1, static_cast<unsigned char>(text[i]), currentPen,
                      false, cols);
    }
  }

  void erase(ScreenRect rect, bool selective);
  // Empties the cells with the current pen (selective: protected cells stay).

  void scrollRect(ScreenRect rect, int downward, int rightward);
  // Moves the rect's content up (downward > 0) / left (rightward > 0) and empties the exposed
  // strip, like libvterm's vterm_scroll_rect; a move of the whole height or width just empties
  // the rect, except that a full-width region at the top sends all its rows to scrollback
  // (xterm does; libvterm drops them, so a one-row screen would never have scrollback).

  void moveRect(ScreenRect dest, ScreenRect src);
  // Copies cells from src to dest (same size) like memmove. Nothing enters scrollback: libvterm
  // only calls this from its default scroll, and scrollRect() handles every scroll itself.

  Pen& pen() { return currentPen; }
  const Pen& pen() const { return currentPen; }
  void resetPen() { currentPen = Pen(); }

  void setAlternate(bool on);
  // Switches the active buffer (libvterm erases the alternate one right after switching to it).

  int resize(int columns, int rows, int cursorRow, int* cursorCol = nullptr,
             int* normalRow = nullptr, int* normalCol = nullptr);
  // Resizes both buffers. When the active buffer loses rows, the rows below the cursor are
  // dropped first (whatever they hold), then rows go from the top (into scrollback on the normal
  // buffer, dropped on the alternate one), so the cursor stays on screen (xterm.js and tmux;
  // libvterm 0.1.4 dropped only blank rows and scrolled the cursor away). When the normal buffer
  // gains rows, rows come back from scrollback. Narrower columns truncate every row that was not
  // reflowed (also scrollback). Returns how far the cursor row must move (libvterm's resize
  // delta), never above the top row.
  // With `cursorCol` and the normal buffer active, a change of columns then reflows the normal
  // buffer at the new height (screen-reflow.c++; rows first, as xterm.js and tmux do): rows
  // joined by autowrap (Row::wrapped) are one line, rewrapped at the new width; *cursorCol is
  // then updated in place and the returned row delta includes the cursor's move. With the
  // alternate buffer active, the normal buffer is reflowed around `normalRow`/`normalCol` (its
  // cursor, kept by the caller), which are updated in place.

  void markContinued(int row);
  // The visible row `row` wrapped into the next one (the Renderer saw autowrap carry a glyph on).

  void clearScrollback();
  // ED 3 (ESC[3J), which xterm supports and libvterm 0.1.4 ignores.

  // Reads ----------------------------------------------------------------------------------------

  int columns() const { return cols; }
  int rows() const { return height; }
  bool alternate() const { return active == &alt; }

  size_t scrollbackSize() const { return normal.ring.size() - height; }
  Row& scrollbackRow(size_t i) { return normal.ring[i]; }
  // Oldest first.

  Row& visibleRow(int row) { return rowOf(*active, row); }
  const Row& visibleRow(int row) const { return rowOf(*active, row); }
  const Row& normalRow(int row) const { return rowOf(normal, row); }
  // The normal buffer's visible rows, also while the alternate buffer is active.

  const ClusterTable& clusters() const { return clusterTable; }

 private:
  struct Buffer {
    RowRing ring;  // scrollback (oldest first) then the visible rows
    size_t scrollbackLimit;
    Buffer(size_t scrollbackLimit, int rows);
  };

  int cols;
  int height;
  Buffer normal;
  Buffer alt;
  Buffer* active;
  Pen currentPen;
  ClusterTable clusterTable;

  Row& rowOf(Buffer& buffer, int row) { return buffer.ring[buffer.ring.size() - height + row]; }
  const Row& rowOf(const Buffer& buffer, int row) const {
    return buffer.ring[buffer.ring.size() - height + row];
  }
  ScreenRect clip(ScreenRect rect) const;
  void putCluster(const uint32_t* chars, int width, int row, int col, bool protectedCell);
  Row& visibleOf(Buffer& buffer, int row) { return rowOf(buffer, row); }
  void emptyRow(Row& row);
  void scrollRows(int startRow, int endRow, int downward);
  void resizeRows(Buffer& buffer, int newRows, bool fromScrollback, int* popped);
  void compactClusters();
  int reflow(int columns, int cursorRow, int* cursorCol);
};

}  // namespace rea::helper
