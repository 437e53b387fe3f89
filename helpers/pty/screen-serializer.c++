#include "helpers/pty/screen-serializer.h"

#include <algorithm>
#include <cstring>

namespace rea::helper {

namespace {

void appendNumber(std::string& out, uint32_t n) {
  char digits[10];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  while (count > 0)
    out.push_back(digits[--count]);
}

void appendCsi(std::string& out, uint32_t n, char final) {
  out += "\x1b[";
  appendNumber(out, n);
  out.push_back(final);
}

void appendColor(std::string& out, Color color, uint32_t base, uint32_t brightBase) {
  if (color == DEFAULT_COLOR) return;
  out.push_back(';');
  if ((color & INDEXED_COLOR) != 0) {
    uint32_t index = color & 0xff;
    if (index < 8) {
      appendNumber(out, base + index);
    } else if (index < 16) {
      appendNumber(out, brightBase + index - 8);
    } else {
      appendNumber(out, base + 8);
      out += ";5;";
      appendNumber(out, index);
    }
  } else {
    appendNumber(out, base + 8);
    out += ";2;";
    appendNumber(out, (color >> 16) & 0xff);
    out.push_back(';');
    appendNumber(out, (color >> 8) & 0xff);
    out.push_back(';');
    appendNumber(out, color & 0xff);
  }
}

// Appends one row's encoding (serializer step 1); returns the column where libvterm's cursor is
// left after it.
int encodeRow(const Row& row, int columns, const ClusterTable& clusters, std::string& out) {
  int end = std::min(static_cast<int>(row.cells.size()), columns);
  while (end > 0 && row.cells[end - 1].isEmpty() && row.cells[end - 1].pen.isDefault())
    end--;
  Pen pen;
  bool protectedPen = false;
  auto usePen = [&](const Pen& wanted) {
    if (wanted != pen) {
      pen = wanted;
      appendPen(out, pen);
    }
  };
  int cursor = 0;
  int col = 0;
  bool wrapAtColumnZero = false;
  while (col < end) {
    const Cell& cell = row.cells[col];
    uint32_t plainAttrs = (pen.attrs & PEN_ATTR_MASK) | (protectedPen ? CELL_PROTECTED : 0);
    auto plain = [&](const Cell& c) {
      // An ASCII glyph (not empty: ch 1-127), not wide, in the pen and protection in effect.
      return c.ch - 1 < 0x7f && c.pen.fg == pen.fg && c.pen.bg == pen.bg &&
             c.pen.attrs == plainAttrs;
    };
    if (plain(cell)) {
      // A run of such glyphs (most text): each is its one byte, as the general case below would
      // write it, without its checks per cell.
      char bytes[128];  // gathered here and appended in one go: cheaper than byte by byte
      size_t count = 0;
      do {
        bytes[count++] = static_cast<char>(row.cells[col].ch);
        col++;
        if (count == sizeof(bytes)) {
          out.append(bytes, count);
          count = 0;
        }
      } while (col < end && plain(row.cells[col]));
      out.append(bytes, count);
      cursor = col < columns ? col : col - 1;
      wrapAtColumnZero = col - 1 == 0 && 1 >= columns;
      continue;
    }
    if (cell.isEmpty()) {
      int run = 1;
      while (col + run < end && row.cells[col + run].isEmpty() &&
             row.cells[col + run].pen == cell.pen) {
        run++;
      }
      if (!cell.pen.isDefault()) {
        usePen(cell.pen);
        appendCsi(out, run, 'X');
      }
      col += run;
      if (col < end) {
        appendCsi(out, run, 'C');
        cursor = col;
      }
      continue;
    }
    if (cell.isSpacer()) {  // unreachable while wide glyphs stay whole; skipping is safe anyway
      col++;
      continue;
    }
    bool wantProtected = (cell.pen.attrs & CELL_PROTECTED) != 0;
    if (wantProtected != protectedPen) {
      protectedPen = wantProtected;
      out += protectedPen ? "\x1b[1\"q" : "\x1b[0\"q";
    }
    usePen(cell.pen);
    if (cell.isZeroWidth()) {
      // A lone combining mark. Written right after the previous glyph, libvterm would attach it
      // to that glyph; after a space and a move back it stays in this cell (and, having no
      // width, leaves the cursor there).
      out.push_back(' ');
      appendCsi(out, col + 1, 'G');
      appendCellText(out, cell.ch, clusters);
      cursor = col++;
      if (col < end) {
        appendCsi(out, 1, 'C');
        cursor = col;
      }
      continue;
    }
    if (cell.ch < 0x80) {
      out.push_back(static_cast<char>(cell.ch));
    } else {
      appendCellText(out, cell.ch, clusters);
    }
    int width = cell.isWide() ? 2 : 1;
    // A glyph that reaches the right edge leaves libvterm's cursor on its own first column
    // (with a wrap pending).
    cursor = col + width < columns ? col + width : col;
    wrapAtColumnZero = col == 0 && width >= columns;
    col += width;
  }
  if (!pen.isDefault()) out += "\x1b[0m";
  if (protectedPen) out += "\x1b[0\"q";
  if (wrapAtColumnZero && columns > 1) {
    // The row's last glyph starts in column 0 and reaches the edge: libvterm's cursor stays in
    // column 0 with a wrap pending, and a CR cannot clear it there (the cursor does not move),
    // so the next glyph would start yet another row. Moving away and back clears it.
    out += "\x1b[1C\x1b[1D";
  }
  return std::min(cursor, columns - 1);
}

void appendPosition(std::string& out, int row, int col) {
  out += "\x1b[";
  appendNumber(out, row + 1);
  out.push_back(';');
  appendNumber(out, col + 1);
  out.push_back('H');
}

void appendMoves(std::string& out, CursorPosition from, CursorPosition to) {
  if (to.row > from.row) appendCsi(out, to.row - from.row, 'B');
  if (to.row < from.row) appendCsi(out, from.row - to.row, 'A');
  if (to.col > from.col) appendCsi(out, to.col - from.col, 'C');
  if (to.col < from.col) appendCsi(out, from.col - to.col, 'D');
}

// Appends the visible rows of the normal or the alternate buffer joined by CR LF, all of them or
// without the trailing ones that encode to nothing; returns where the cursor is left.
CursorPosition appendVisibleRows(const ScreenModel& model, bool normalBuffer, bool keepTrailing,
                                 std::string& out) {
  // Encoded straight into `out`; without keepTrailing, cut back after the last row that
  // encoded to something.
  size_t keep = out.size();
  CursorPosition at{0, 0};
  for (int row = 0; row < model.rows(); row++) {
    if (row > 0) out += "\r\n";
    size_t start = out.size();
    const Row& source = normalBuffer ? model.normalRow(row) : model.visibleRow(row);
    int endCol = encodeRow(source, model.columns(), model.clusters(), out);
    if (keepTrailing || out.size() > start) {
      keep = out.size();
      at = CursorPosition{row, endCol};
    }
  }
  out.resize(keep);
  return at;
}

}  // namespace

void appendPen(std::string& out, const Pen& pen) {
  out += "\x1b[0";
  uint32_t attrs = pen.attrs;
  if (attrs & ATTR_BOLD) out += ";1";
  if (attrs & ATTR_ITALIC) out += ";3";
  switch ((attrs & ATTR_UNDERLINE_MASK) >> ATTR_UNDERLINE_SHIFT) {
    case 1:
      out += ";4";
      break;
    case 2:
      out += ";21";
      break;
    case 3:
      out += ";4:3";
      break;
  }
  if (attrs & ATTR_BLINK) out += ";5";
  if (attrs & ATTR_REVERSE) out += ";7";
  if (attrs & ATTR_STRIKE) out += ";9";
  if (attrs & ATTR_OVERLINE) out += ";53";
  uint32_t font = (attrs & ATTR_FONT_MASK) >> ATTR_FONT_SHIFT;
  if (font != 0) {
    out.push_back(';');
    appendNumber(out, 10 + font);
  }
  appendColor(out, pen.fg, 30, 90);
  appendColor(out, pen.bg, 40, 100);
  out.push_back('m');
}

std::vector<std::string> renderLines(const ScreenModel& model) {
  std::vector<std::string> lines(model.rows());
  size_t columns = model.columns();
  for (int row = 0; row < model.rows(); row++) {
    const Row& source = model.visibleRow(row);
    std::string& line = lines[row];
    size_t stored = std::min(source.cells.size(), columns);
    // ASCII glyphs and empty cells (most rows, often all of them) are one byte and one code unit
    // each: written in place over a row of spaces up to the first other cell.
    line.assign(columns, ' ');
    size_t col = 0;
    for (; col < stored && source.cells[col].ch < 0x80; col++) {
      if (!source.cells[col].isEmpty()) line[col] = static_cast<char>(source.cells[col].ch);
    }
    if (col == stored) continue;
    line.resize(col);
    size_t units = col;
    for (; col < stored; col++) {
      const Cell& cell = source.cells[col];
      if (cell.isSpacer()) continue;
      if (cell.isEmpty()) {
        line.push_back(' ');
        units++;
      } else if (cell.ch < 0x80) {
        line.push_back(static_cast<char>(cell.ch));
        units++;
      } else {
        appendCellText(line, cell.ch, model.clusters());
        units += cellUtf16Length(cell.ch, model.clusters());
      }
    }
    // Cells past the stored part are empty: one space each. Then pad for the wide glyphs that
    // took two columns but one UTF-16 code unit.
    line.append(columns - stored, ' ');
    units += columns - stored;
    if (units < columns) line.append(columns - units, ' ');
  }
  return lines;
}

bool serializeScreen(ScreenModel& model, const TerminalModes& modes, CursorPosition cursor,
                     bool wrapPending, CursorPosition normalCursor, size_t limit,
                     std::string& out) {
  size_t scrollback = model.scrollbackSize();
  const ClusterTable& clusters = model.clusters();

  // Everything after the scrollback first: its size decides whether the frame fits at all.
  std::string tail;
  CursorPosition at = appendVisibleRows(model, true, scrollback > 0, tail);
  if (model.alternate()) {
    normalCursor.row = std::clamp(normalCursor.row, 0, model.rows() - 1);
    normalCursor.col = std::clamp(normalCursor.col, 0, model.columns() - 1);
    appendMoves(tail, at, normalCursor);
    tail += "\x1b[?1049h\x1b[H";
    at = appendVisibleRows(model, false, false, tail);
  }
  // The pen goes before the cursor: in origin mode libvterm pulls the cursor into the region
  // after every CSI, so nothing may follow the DECRC below.
  if (!model.pen().isDefault()) appendPen(tail, model.pen());
  if (modes.usesAbsoluteCursor()) {
    modes.appendRegion(tail);
    modes.appendOtherModes(tail);
    bool reachable = cursor.row >= modes.regionTop() && cursor.row < modes.regionBottom() &&
                     cursor.col >= modes.regionLeft() && cursor.col < modes.regionRight();
    if (!modes.origin()) {
      appendPosition(tail, cursor.row, cursor.col);
    } else if (reachable) {
      tail += "\x1b[?6h";
      appendPosition(tail, cursor.row - modes.regionTop(), cursor.col - modes.regionLeft());
    } else {
      // Origin mode confines CUP to the region, but the cursor is outside it: place it first,
      // save it (DECSC), set origin mode (which homes the cursor) and restore it (DECRC).
      appendPosition(tail, cursor.row, cursor.col);
      tail +=
          "\x1b"
          "7\x1b[?6h\x1b"
          "8";
    }
  } else {
    modes.appendOtherModes(tail);
    appendMoves(tail, at, cursor);
  }
  // Where the rows left the copy's cursor on that very glyph, its wrap is pending already.
  bool moved = modes.usesAbsoluteCursor() || at.row != cursor.row || at.col != cursor.col;
  if (wrapPending && moved && !modes.origin()) {
    const Cell& cell = model.visibleRow(cursor.row).at(cursor.col);
    bool cellProtected = (cell.pen.attrs & CELL_PROTECTED) != 0;
    if (!cell.isEmpty() && !cell.isSpacer() && !cell.isZeroWidth() &&
        cellProtected == modes.protecting()) {
      // Writing the glyph at the edge again leaves the copy's wrap pending too.
      if (cell.pen != model.pen()) appendPen(tail, cell.pen);
      appendCellText(tail, cell.ch, clusters);
      if (cell.pen != model.pen()) appendPen(tail, model.pen());
    }
  }

  size_t total = tail.size();
  for (size_t i = 0; i < scrollback; i++) {
    Row& row = model.scrollbackRow(i);
    if (!row.encodedValid) {
      row.encoded.clear();
      encodeRow(row, model.columns(), clusters, row.encoded);
      row.encodedValid = true;
    }
    total += row.encoded.size() + 2;
    if (total > limit) return false;
  }
  if (total > limit) return false;

  // One copy per row into the final size (appending row by row costs more than the copying).
  out.clear();
  out.resize(total);
  char* to = out.data();
  for (size_t i = 0; i < scrollback; i++) {
    const std::string& encoded = model.scrollbackRow(i).encoded;
    memcpy(to, encoded.data(), encoded.size());
    to += encoded.size();
    *to++ = '\r';
    *to++ = '\n';
  }
  memcpy(to, tail.data(), tail.size());
  return true;
}

}  // namespace rea::helper
