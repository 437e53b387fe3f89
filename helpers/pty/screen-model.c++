#include "helpers/pty/screen-model.h"

#include <algorithm>
#include <cstdlib>

namespace rea::helper {

ScreenModel::Buffer::Buffer(size_t scrollbackLimit, int rows)
    : ring(scrollbackLimit + rows), scrollbackLimit(scrollbackLimit) {
  for (int i = 0; i < rows; i++)
    ring.pushBack();
}

ScreenModel::ScreenModel(int columns, int rows, int scrollback)
    : cols(columns), height(rows), normal(scrollback, rows), alt(0, rows), active(&normal) {}

ScreenRect ScreenModel::clip(ScreenRect rect) const {
  rect.startRow = std::clamp(rect.startRow, 0, height);
  rect.endRow = std::clamp(rect.endRow, rect.startRow, height);
  rect.startCol = std::clamp(rect.startCol, 0, cols);
  rect.endCol = std::clamp(rect.endCol, rect.startCol, cols);
  return rect;
}

void ScreenModel::putCluster(const uint32_t* chars, int width, int row, int col,
                             bool protectedCell) {
  if (row < 0 || row >= height || col < 0 || col >= cols) return;
  size_t count = 0;
  while (count < MAX_CLUSTER && chars[count] != 0)
    count++;
  if (count == 0) return;
  uint32_t ch = chars[0];
  if (count > 1) {
    if (clusterTable.needsCompaction()) compactClusters();
    ch = clusterTable.intern(chars, count);
  } else if (ch >= CLUSTER_BIT) {
    ch = 0xfffd;  // not a code point; keeps the cell encoding unambiguous
  }
  visibleOf(*active, row).putGlyph(col, width, ch, currentPen, protectedCell, cols);
}

void ScreenModel::emptyRow(Row& row) {
  row.reset();
  if (!currentPen.isDefault()) row.erase(0, cols, currentPen, false);
}

void ScreenModel::erase(ScreenRect rect, bool selective) {
  rect = clip(rect);
  bool wholeRows = !selective && rect.startCol == 0 && rect.endCol == cols;
  for (int row = rect.startRow; row < rect.endRow; row++) {
    Row& target = visibleOf(*active, row);
    if (wholeRows) {
      emptyRow(target);
    } else {
      target.erase(rect.startCol, rect.endCol, currentPen, selective);
    }
  }
}

void ScreenModel::scrollRows(int startRow, int endRow, int downward) {
  RowRing& ring = active->ring;
  auto index = [&](int row) { return ring.size() - height + row; };
  if (downward > 0) {
    int n = downward;
    if (startRow == 0) {
      // The top n rows leave the screen: appending n rows moves the visible window down, so they
      // become scrollback (the alternate buffer, and scrollback 0, has no room: they are dropped).
      for (int i = 0; i < n; i++)
        ring.pushBack();
      int below = height - endRow;
      if (below > 0) {
        // The region ends above the bottom: the rows under it go back below the new rows.
        size_t last = ring.size();
        ring.rotate(last - n - below, last - n, last);
      }
    } else {
      for (int row = startRow; row < endRow - n; row++)
        ring.swapRows(index(row), index(row + n));
    }
    for (int row = endRow - n; row < endRow; row++)
      emptyRow(ring[index(row)]);
  } else {
    int n = -downward;
    for (int row = endRow - 1; row >= startRow + n; row--) {
      ring.swapRows(index(row), index(row - n));
    }
    for (int row = startRow; row < startRow + n; row++)
      emptyRow(ring[index(row)]);
  }
}

void ScreenModel::scrollRect(ScreenRect rect, int downward, int rightward) {
  rect = clip(rect);
  int rowCount = rect.endRow - rect.startRow;
  int colCount = rect.endCol - rect.startCol;
  if (rowCount <= 0 || colCount <= 0 || (downward == 0 && rightward == 0)) return;
  bool fullWidth = rightward == 0 && rect.startCol == 0 && rect.endCol == cols;
  if (fullWidth && rect.startRow == 0 && downward >= rowCount) {
    // Every row of a region at the top scrolls off: they go to scrollback, as in xterm.
    // (libvterm just erases them, so a one-row screen would never keep any scrollback.)
    scrollRows(rect.startRow, rect.endRow, rowCount);
    return;
  }
  if (std::abs(downward) >= rowCount || std::abs(rightward) >= colCount) {
    erase(rect, false);
    return;
  }
  if (fullWidth) {
    scrollRows(rect.startRow, rect.endRow, downward);
    return;
  }
  // A rect narrower than the screen (DECSLRM margins, ICH/DCH): move cells, as libvterm's
  // vterm_scroll_rect does, then empty the exposed strip.
  ScreenRect src = rect;
  ScreenRect dest = rect;
  if (rightward >= 0) {
    dest.endCol = rect.endCol - rightward;
    src.startCol = rect.startCol + rightward;
  } else {
    dest.startCol = rect.startCol - rightward;
    src.endCol = rect.endCol + rightward;
  }
  if (downward >= 0) {
    dest.endRow = rect.endRow - downward;
    src.startRow = rect.startRow + downward;
  } else {
    dest.startRow = rect.startRow - downward;
    src.endRow = rect.endRow + downward;
  }
  moveRect(dest, src);
  ScreenRect exposed = rect;
  if (downward > 0) {
    exposed.startRow = rect.endRow - downward;
  } else if (downward < 0) {
    exposed.endRow = rect.startRow - downward;
  }
  if (rightward > 0) {
    exposed.startCol = rect.endCol - rightward;
  } else if (rightward < 0) {
    exposed.endCol = rect.startCol - rightward;
  }
  erase(exposed, false);
}

void ScreenModel::moveRect(ScreenRect dest, ScreenRect src) {
  dest = clip(dest);
  src = clip(src);
  int rowCount = std::min(dest.endRow - dest.startRow, src.endRow - src.startRow);
  int colCount = std::min(dest.endCol - dest.startCol, src.endCol - src.startCol);
  if (rowCount <= 0 || colCount <= 0) return;
  int downward = src.startRow - dest.startRow;
  auto copyRow = [&](int row) {
    Row& target = visibleOf(*active, row);
    target.copyFrom(visibleOf(*active, row + downward), src.startCol, dest.startCol, colCount);
  };
  if (downward >= 0) {
    for (int row = dest.startRow; row < dest.startRow + rowCount; row++)
      copyRow(row);
  } else {
    for (int row = dest.startRow + rowCount - 1; row >= dest.startRow; row--)
      copyRow(row);
  }
}

void ScreenModel::setAlternate(bool on) {
  active = on ? &alt : &normal;
}

void ScreenModel::resizeRows(Buffer& buffer, int newRows, bool fromScrollback, int* popped) {
  RowRing& ring = buffer.ring;
  if (newRows < height) {
    for (int i = newRows; i < height; i++)
      ring.popBack();
    ring.setCapacity(buffer.scrollbackLimit + newRows);
    return;
  }
  ring.setCapacity(buffer.scrollbackLimit + newRows);
  int gained = newRows - height;
  int scrollback = static_cast<int>(ring.size()) - height;
  int back = fromScrollback ? std::min(gained, scrollback) : 0;
  // Rows that come back from scrollback are visible (mutable) again: drop their cached encoding.
  for (int i = 0; i < back; i++)
    ring[ring.size() - height - 1 - i].encodedValid = false;
  for (int i = back; i < gained; i++)
    ring.pushBack();
  if (popped != nullptr) *popped = back;
}

void ScreenModel::markContinued(int row) {
  if (row >= 0 && row + 1 < height) rowOf(*active, row + 1).wrapped = true;
}

int ScreenModel::resize(int columns, int rows, int cursorRow, int* cursorCol, int* normalRow,
                        int* normalCol) {
  // Rows first, then the reflow at the new width, as tmux and xterm.js do: a grow pulls rows back
  // from scrollback at the old width, and the reflow lays the lines out on the new screen.
  int delta = 0;
  bool onNormal = active == &normal;
  if (rows < height) {
    // Anchored at the cursor, as xterm.js and tmux do: the rows below the cursor go first
    // (whatever they hold), then rows from the top, into scrollback on the normal buffer and
    // dropped on the alternate one, so the cursor stays on screen on its own line.
    int below = std::max(height - 1 - std::max(cursorRow, 0), 0);
    int fromTop = height - rows - std::min(below, height - rows);
    if (fromTop > 0) {
      scrollRows(0, height, fromTop);
      int moved = std::min(fromTop, std::max(cursorRow, 0));
      delta -= moved;
      cursorRow -= moved;
    }
  }
  int popped = 0;
  // A grow brings rows back from scrollback only while the cursor is on the bottom row, as
  // xterm.js does (Buffer.resize): a cursor above it has blank rows below, and those are added
  // (tmux pulls its scrolled history back whatever the cursor's row; known-differences.h).
  resizeRows(normal, rows, onNormal && cursorRow >= height - 1, &popped);
  resizeRows(alt, rows, false, nullptr);
  height = rows;
  delta += popped;
  cursorRow += popped;
  if (onNormal && cursorCol != nullptr && columns != cols) {
    delta += reflow(columns, cursorRow, cursorCol);
  } else if (!onNormal && normalRow != nullptr && normalCol != nullptr && columns != cols) {
    // The normal buffer under the alternate screen is reflowed too (xterm.js at once, tmux when
    // the alternate screen is left), around the cursor it will get back.
    int row = std::clamp(*normalRow, 0, height - 1);
    *normalRow = row + reflow(columns, row, normalCol);
  }
  if (columns < cols) {
    auto truncate = [columns](Row& row) { row.truncate(columns); };
    normal.ring.forEachRow(truncate);
    alt.ring.forEachRow(truncate);
  }
  cols = columns;
  return delta;
}

void ScreenModel::clearScrollback() {
  normal.ring.popFront(scrollbackSize());
}

void ScreenModel::compactClusters() {
  clusterTable.compact([this](auto&& visit) {
    auto visitRow = [&visit](Row& row) {
      for (Cell& cell : row.cells)
        visit(cell);
    };
    normal.ring.forEachRow(visitRow);
    alt.ring.forEachRow(visitRow);
  });
}

}  // namespace rea::helper
