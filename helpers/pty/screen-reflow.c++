// ScreenModel::reflow: rewraps the normal buffer's lines at a new width on a resize (issue 24),
// as xterm.js and tmux do (the alternate buffer is never reflowed, like theirs). Rows that
// autowrap joined (Row::wrapped) form one line; its cells are laid out again at the new width,
// a wide glyph that would straddle the edge starting the next row. The visible rows are then the
// last `height` rows (rows pushed above them become scrollback, the oldest beyond the limit are
// dropped; missing rows are added empty at the bottom), and the cursor keeps its place in its
// line.

#include "helpers/pty/screen-model.h"

#include <algorithm>
#include <vector>

namespace rea::helper {

namespace {

struct LineCells {
  std::vector<Cell> cells;
  int cursorOffset = -1;  // the cursor's place in the line, or -1
  size_t textEnd = 0;     // cells up to the last one holding a glyph
};

}  // namespace

int ScreenModel::reflow(int columns, int cursorRow, int* cursorCol) {
  RowRing& ring = normal.ring;
  size_t total = ring.size();
  size_t cursorIndex = total - height + std::max(cursorRow, 0);

  // 1. The logical lines, oldest first.
  std::vector<LineCells> lines;
  bool open = false;
  for (size_t i = 0; i < total; i++) {
    Row& row = ring[i];
    if (!open) lines.emplace_back();
    LineCells& line = lines.back();
    size_t start = line.cells.size();
    if (i == cursorIndex) line.cursorOffset = static_cast<int>(start) + *cursorCol;
    size_t stored = std::min(row.cells.size(), static_cast<size_t>(cols));
    line.cells.insert(line.cells.end(), row.cells.begin(), row.cells.begin() + stored);
    open = i + 1 < total && ring[i + 1].wrapped;
    if (open) {
      // A wrapped row is full width; its last cell stays empty only when a wide glyph did not
      // fit there (then the next row starts with it): drop that cell.
      line.cells.resize(start + cols);
      const Row& next = ring[i + 1];
      if (line.cells.back().isEmpty() && !next.cells.empty() && next.cells[0].isWide()) {
        line.cells.pop_back();
      }
    } else {
      while (line.cells.size() > start && line.cells.back().isEmpty() &&
             line.cells.back().pen.isDefault()) {
        line.cells.pop_back();
      }
      line.textEnd = line.cells.size();
      while (line.textEnd > 0 && line.cells[line.textEnd - 1].isEmpty())
        line.textEnd--;
    }
  }

  // 2. Lay them out at the new width.
  std::vector<Row> rows;
  int newCursorRow = 0;
  int newCursorCol = 0;
  for (LineCells& line : lines) {
    size_t first = rows.size();
    rows.emplace_back();
    int col = 0;
    int lineOffset = 0;
    bool placed = false;
    for (size_t k = 0; k < line.cells.size(); k++) {
      const Cell& cell = line.cells[k];
      int width = cell.isWide() && columns > 1 ? 2 : 1;
      if (cell.isSpacer()) continue;  // comes with its wide glyph
      if (col + width > columns) {
        // Blank cells after the text (erased with a colour) do not make the line wrap: xterm.js
        // and tmux measure a line by its text; those past the new width are dropped.
        if (k >= line.textEnd) break;
        rows.emplace_back();
        rows.back().wrapped = true;
        col = 0;
      }
      if (!placed && line.cursorOffset >= 0 && line.cursorOffset <= lineOffset) {
        newCursorRow = static_cast<int>(rows.size() - 1);
        newCursorCol = col;
        placed = true;
      }
      Row& row = rows.back();
      row.cells.resize(col);
      row.cells.push_back(cell);
      if (width == 2) {
        if (k + 1 < line.cells.size() && line.cells[k + 1].isSpacer()) {
          row.cells.push_back(line.cells[k + 1]);
        } else {
          row.cells.back().pen.attrs &= ~CELL_WIDE;
          width = 1;
        }
      } else {
        row.cells.back().pen.attrs &= ~CELL_WIDE;
      }
      col += width;
      lineOffset += cell.isWide() ? 2 : 1;
    }
    if (!placed && line.cursorOffset >= 0) {
      // Past the line's text: as far right of its end as it was, on the row that follows when
      // the end is the new width.
      int past = line.cursorOffset - lineOffset;
      if (col + past >= columns && col > 0 && line.cursorOffset > 0) {
        int beyond = col + past;
        while (beyond >= columns &&
               rows.size() - first < 1 + static_cast<size_t>(beyond / columns)) {
          rows.emplace_back();
          rows.back().wrapped = true;
          beyond -= columns;
        }
        newCursorRow = static_cast<int>(rows.size() - 1);
        newCursorCol = std::min(beyond, columns - 1);
      } else {
        newCursorRow = static_cast<int>(rows.size() - 1);
        newCursorCol = std::min(col + past, columns - 1);
      }
    }
  }

  // 3. Back into the ring: the last `height` rows are visible, the cursor row among them.
  size_t wanted = std::max(rows.size(), static_cast<size_t>(newCursorRow) + 1);
  while (rows.size() < static_cast<size_t>(height))
    rows.emplace_back();
  size_t visibleStart = rows.size() - height;
  if (static_cast<size_t>(newCursorRow) < visibleStart) {
    // Only blank rows below the cursor: drop them rather than push the cursor off the screen.
    size_t drop = std::min(visibleStart - newCursorRow, rows.size() - wanted);
    rows.resize(rows.size() - drop);
    while (rows.size() < static_cast<size_t>(height))
      rows.emplace_back();
    visibleStart = rows.size() - height;
  }
  size_t keep = std::min(rows.size(), normal.scrollbackLimit + height);
  size_t skip = rows.size() - keep;
  ring.popFront(ring.size());
  for (size_t i = skip; i < rows.size(); i++) {
    Row& target = ring.pushBack();
    target.cells.swap(rows[i].cells);
    target.wrapped = rows[i].wrapped;
  }
  int oldRow = cursorRow;
  int newRow = std::max(newCursorRow - static_cast<int>(visibleStart), 0);
  *cursorCol = newCursorCol;
  return newRow - oldRow;
}

}  // namespace rea::helper
