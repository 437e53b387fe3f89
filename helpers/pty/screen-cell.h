#pragma once
// Cells and rows of the renderer's screen model: what one terminal cell holds (a glyph or
// nothing, plus the pen it was written or erased with) and the row operations that keep wide
// characters whole.
//
// A Row stores only its leftmost cells: every cell at or past `cells.size()` is an empty cell
// with the default pen. The common short line (`seq`, a prompt) and erasing to the end of a line
// with the default pen are then cheap, and scrollback costs memory in proportion to its text.
//
// Wide characters: a glyph of width 2 sets WIDE on its cell and the next cell holds SPACER.
// Every operation here keeps that pairing: overwriting or erasing one half empties the other
// half, so a row never holds half a wide character (xterm does the same; libvterm's own screen
// layer would leave the other half behind).
//
// Errors: none. Column arguments are clamped by the callers (ScreenModel); out-of-range columns
// here are bugs.

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace rea::helper {

using Color = uint32_t;
// DEFAULT_COLOR, or INDEXED_COLOR | palette index (0-255), or RGB_COLOR | 0xRRGGBB.
constexpr Color DEFAULT_COLOR = 0;
constexpr Color INDEXED_COLOR = 0x01000000;
constexpr Color RGB_COLOR = 0x02000000;

// Pen attribute bits (Pen::attrs). Bits 16 and up are cell flags, never part of a pen.
constexpr uint32_t ATTR_BOLD = 1u << 0;
constexpr uint32_t ATTR_ITALIC = 1u << 1;
constexpr uint32_t ATTR_BLINK = 1u << 2;
constexpr uint32_t ATTR_REVERSE = 1u << 3;
constexpr uint32_t ATTR_STRIKE = 1u << 4;
constexpr uint32_t ATTR_UNDERLINE_SHIFT = 5;  // 2 bits: 0 none, 1 single, 2 double, 3 curly
constexpr uint32_t ATTR_UNDERLINE_MASK = 3u << ATTR_UNDERLINE_SHIFT;
constexpr uint32_t ATTR_FONT_SHIFT = 7;  // 4 bits: alternative font 0-9 (SGR 10-19)
constexpr uint32_t ATTR_FONT_MASK = 15u << ATTR_FONT_SHIFT;
constexpr uint32_t ATTR_OVERLINE = 1u << 11;  // SGR 53 (tracked by the Renderer itself)
constexpr uint32_t PEN_ATTR_MASK = 0xffff;
constexpr uint32_t CELL_WIDE = 1u << 16;        // left half of a two-column glyph
constexpr uint32_t CELL_PROTECTED = 1u << 17;   // DECSCA: selective erase skips it
constexpr uint32_t CELL_ZERO_WIDTH = 1u << 18;  // a combining mark printed on its own (width 0)

struct Pen {
  Color fg = DEFAULT_COLOR;
  Color bg = DEFAULT_COLOR;
  uint32_t attrs = 0;  // ATTR_* bits; a Cell's copy also carries CELL_* flags

  bool operator==(const Pen& other) const {
    return fg == other.fg && bg == other.bg &&
           (attrs & PEN_ATTR_MASK) == (other.attrs & PEN_ATTR_MASK);
  }
  bool operator!=(const Pen& other) const { return !(*this == other); }
  bool isDefault() const { return *this == Pen(); }
};
// Compares colours and attributes only (cell flags are ignored).

constexpr uint32_t EMPTY_CELL = 0;            // never written, or erased
constexpr uint32_t SPACER_CELL = 0xffffffff;  // right half of a wide glyph
constexpr uint32_t CLUSTER_BIT = 0x80000000;  // low bits index a ClusterTable entry

struct Cell {
  uint32_t ch = EMPTY_CELL;  // a code point, EMPTY_CELL, SPACER_CELL, or CLUSTER_BIT | id
  Pen pen;

  bool isEmpty() const { return ch == EMPTY_CELL; }
  bool isSpacer() const { return ch == SPACER_CELL; }
  bool isWide() const { return (pen.attrs & CELL_WIDE) != 0; }
  bool isZeroWidth() const { return (pen.attrs & CELL_ZERO_WIDTH) != 0; }
};

class ClusterTable {
  // Glyphs of more than one code point (a base with combining marks). Cells refer to them by id
  // (CLUSTER_BIT | id); identical clusters share one id. Ids are only valid until the next
  // compact(), which the owner of all cells (ScreenModel) runs when needsCompaction() says so.
 public:
  uint32_t intern(const uint32_t* codePoints, size_t count);
  // Returns the cell value (CLUSTER_BIT | id) for the code points.

  const std::u32string& get(uint32_t cellValue) const { return entries[cellValue & ~CLUSTER_BIT]; }

  bool needsCompaction() const { return entries.size() >= compactAt; }
  template <typename ForEachCell>
  void compact(ForEachCell&& forEachCell);
  // forEachCell(f) must call f(Cell&) for every live cell; unused entries are dropped and the
  // cells renumbered.

 private:
  std::vector<std::u32string> entries;
  std::unordered_map<std::u32string, uint32_t> index;
  size_t compactAt = 4096;
};

struct Row {
  std::vector<Cell> cells;  // leftmost cells; the rest of the row is empty with the default pen
  std::string encoded;      // cache for the serializer (valid only while encodedValid)
  bool encodedValid = false;
  bool wrapped = false;  // autowrap carried the line on from the row above: reflow joins them
  // (kept on the continuing row, like xterm.js's isWrapped: a row deleted, scrolled away or
  // erased whole takes the join with it)

  void reset() {
    cells.clear();
    wrapped = false;
    encoded.clear();
    encodedValid = false;
  }
  // Empties the row, keeping its allocation for reuse.

  const Cell& at(int col) const;
  // The cell at `col`, or an empty default cell past the stored part.

  bool isBlank() const;
  // True if no cell holds a glyph (pens are ignored), like libvterm's vterm_screen_is_eol at 0.

  void putGlyph(int col, int width, uint32_t ch, const Pen& pen, bool protectedCell, int columns) {
    // Fast path (most glyphs): a narrow glyph over a cell that is not half of a wide one, so no
    // pairing can break. A cell at the end of the stored part cannot be a spacer either.
    if (width == 1 && !protectedCell && static_cast<size_t>(col) <= cells.size()) {
      if (static_cast<size_t>(col) == cells.size()) {
        cells.push_back(Cell{ch, Pen{pen.fg, pen.bg, pen.attrs & PEN_ATTR_MASK}});
        return;
      }
      Cell& cell = cells[col];
      if (!cell.isSpacer() && !cell.isWide()) {
        cell.ch = ch;
        cell.pen = Pen{pen.fg, pen.bg, pen.attrs & PEN_ATTR_MASK};
        return;
      }
    }
    putGlyphSlow(col, width, ch, pen, protectedCell, columns);
  }
  // Writes a glyph of `width`: 2 makes a wide glyph if it fits before `columns` (else, on a
  // one-column screen, it takes the cell alone); 0 (a combining mark libvterm could not attach
  // to a base) is flagged CELL_ZERO_WIDTH.

  void erase(int start, int end, const Pen& pen, bool selective);
  // Empties cells [start, end) with `pen`; `selective` keeps protected cells (DECSED/DECSEL).

  void copyFrom(const Row& source, int sourceCol, int destCol, int count);
  // Copies cells like memmove (source may be this row), then mends wide glyphs at the edges.

  void truncate(int columns);
  // Drops cells at and past `columns` (a resize), emptying a wide glyph cut in half.

  void mendWide(int col);
  // Restores the wide-glyph pairing across the boundary between col-1 and col.

 private:
  void ensureSize(int size);
  void putGlyphSlow(int col, int width, uint32_t ch, const Pen& pen, bool protectedCell,
                    int columns);
};

void appendUtf8(std::string& out, uint32_t codePoint);
// Appends the UTF-8 encoding; surrogates and values above U+10FFFF become U+FFFD.

void appendCellText(std::string& out, uint32_t ch, const ClusterTable& clusters);
// Appends the cell's glyph as UTF-8 (nothing for EMPTY_CELL or SPACER_CELL).

size_t cellUtf16Length(uint32_t ch, const ClusterTable& clusters);
// UTF-16 code units of the cell's glyph (what B §6.11 pads lines with).

// ---------------------------------------------------------------------------------------------

template <typename ForEachCell>
void ClusterTable::compact(ForEachCell&& forEachCell) {
  std::vector<std::u32string> kept;
  std::unordered_map<uint32_t, uint32_t> renumbered;
  forEachCell([&](Cell& cell) {
    if (cell.ch == SPACER_CELL || (cell.ch & CLUSTER_BIT) == 0) return;
    uint32_t old = cell.ch & ~CLUSTER_BIT;
    auto found = renumbered.find(old);
    if (found == renumbered.end()) {
      found = renumbered.emplace(old, static_cast<uint32_t>(kept.size())).first;
      kept.push_back(std::move(entries[old]));
    }
    cell.ch = CLUSTER_BIT | found->second;
  });
  entries = std::move(kept);
  index.clear();
  for (uint32_t i = 0; i < entries.size(); i++)
    index.emplace(entries[i], i);
  // Compact again only after as many new clusters as are live now (and at least 4096), so the
  // scan over all cells is paid for by the insertions since the last one.
  compactAt = std::max<size_t>(4096, 2 * entries.size());
}

}  // namespace rea::helper
