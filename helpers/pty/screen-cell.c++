#include "helpers/pty/screen-cell.h"

#include <algorithm>

namespace rea::helper {

uint32_t ClusterTable::intern(const uint32_t* codePoints, size_t count) {
  std::u32string key(reinterpret_cast<const char32_t*>(codePoints), count);
  auto found = index.find(key);
  if (found != index.end()) return CLUSTER_BIT | found->second;
  uint32_t id = static_cast<uint32_t>(entries.size());
  entries.push_back(key);
  index.emplace(std::move(key), id);
  return CLUSTER_BIT | id;
}

const Cell& Row::at(int col) const {
  static const Cell EMPTY;
  return static_cast<size_t>(col) < cells.size() ? cells[col] : EMPTY;
}

bool Row::isBlank() const {
  for (const Cell& cell : cells) {
    if (!cell.isEmpty()) return false;
  }
  return true;
}

void Row::ensureSize(int size) {
  if (cells.size() < static_cast<size_t>(size)) cells.resize(size);
}

void Row::mendWide(int col) {
  int size = static_cast<int>(cells.size());
  if (col > size || col < 0) return;
  bool rightSpacer = col < size && cells[col].isSpacer();
  bool leftWide = col > 0 && cells[col - 1].isWide();
  if (leftWide && !rightSpacer) {
    cells[col - 1].ch = EMPTY_CELL;
    cells[col - 1].pen.attrs &= PEN_ATTR_MASK;
  } else if (rightSpacer && !leftWide) {
    cells[col].ch = EMPTY_CELL;
    cells[col].pen.attrs &= PEN_ATTR_MASK;
  }
}

void Row::putGlyphSlow(int col, int width, uint32_t ch, const Pen& pen, bool protectedCell,
                       int columns) {
  bool wide = width >= 2 && col + 1 < columns;
  int span = wide ? 2 : 1;
  ensureSize(col + span);
  uint32_t flags = protectedCell ? CELL_PROTECTED : 0;
  Cell& cell = cells[col];
  cell.ch = ch;
  cell.pen = pen;
  cell.pen.attrs = (pen.attrs & PEN_ATTR_MASK) | flags | (wide ? CELL_WIDE : 0) |
                   (width < 1 ? CELL_ZERO_WIDTH : 0);
  if (wide) {
    Cell& spacer = cells[col + 1];
    spacer.ch = SPACER_CELL;
    spacer.pen = pen;
    spacer.pen.attrs = (pen.attrs & PEN_ATTR_MASK) | flags;
  }
  mendWide(col);
  mendWide(col + span);
}

void Row::erase(int start, int end, const Pen& pen, bool selective) {
  if (start >= end) return;
  int size = static_cast<int>(cells.size());
  bool defaultPen = pen.isDefault();
  if (!selective && defaultPen && end >= size) {
    // Everything from `start` on becomes the implicit empty tail.
    if (start < size) cells.resize(start);
    mendWide(start);
    return;
  }
  if (defaultPen) {
    end = std::min(end, size);
  } else {
    ensureSize(end);
  }
  Cell blank;
  blank.pen = pen;
  blank.pen.attrs &= PEN_ATTR_MASK;
  for (int col = start; col < end; col++) {
    if (selective && (cells[col].pen.attrs & CELL_PROTECTED) != 0) continue;
    cells[col] = blank;
  }
  mendWide(start);
  mendWide(end);
}

void Row::copyFrom(const Row& source, int sourceCol, int destCol, int count) {
  if (count <= 0) return;
  if (&source == this) {
    ensureSize(std::max(sourceCol, destCol) + count);
    auto first = cells.begin() + sourceCol;
    if (destCol <= sourceCol) {
      std::copy(first, first + count, cells.begin() + destCol);
    } else {
      std::copy_backward(first, first + count, cells.begin() + destCol + count);
    }
  } else {
    ensureSize(destCol + count);
    for (int i = 0; i < count; i++)
      cells[destCol + i] = source.at(sourceCol + i);
  }
  mendWide(destCol);
  mendWide(destCol + count);
}

void Row::truncate(int columns) {
  if (cells.size() <= static_cast<size_t>(columns)) return;
  cells.resize(columns);
  mendWide(columns);
  encodedValid = false;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) cp = 0xfffd;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

void appendCellText(std::string& out, uint32_t ch, const ClusterTable& clusters) {
  if (ch == EMPTY_CELL || ch == SPACER_CELL) return;
  if ((ch & CLUSTER_BIT) == 0) {
    appendUtf8(out, ch);
    return;
  }
  for (char32_t cp : clusters.get(ch))
    appendUtf8(out, cp);
}

namespace {

size_t codePointUtf16Length(uint32_t cp) {
  return cp >= 0x10000 && cp <= 0x10ffff ? 2 : 1;
}

}  // namespace

size_t cellUtf16Length(uint32_t ch, const ClusterTable& clusters) {
  if (ch == EMPTY_CELL || ch == SPACER_CELL) return 0;
  if ((ch & CLUSTER_BIT) == 0) return codePointUtf16Length(ch);
  size_t length = 0;
  for (char32_t cp : clusters.get(ch))
    length += codePointUtf16Length(cp);
  return length;
}

}  // namespace rea::helper
