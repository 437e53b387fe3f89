#include "supervisor/cli/screen-svg.h"

#include <vterm.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <vector>

namespace rea::supervisor {
namespace {

constexpr int CELL_WIDTH = 9;    // px: a monospace glyph at 15 px
constexpr int CELL_HEIGHT = 18;  // px: one row
constexpr int PADDING = 8;       // px around the grid
constexpr char DEFAULT_FG[] = "#d0d0d0";
constexpr char DEFAULT_BG[] = "#1e1e1e";

struct VTermDeleter {
  void operator()(VTerm* vt) const { vterm_free(vt); }
};

std::string hex(const VTermColor& color) {
  char text[8];
  std::snprintf(text, sizeof(text), "#%02x%02x%02x", color.rgb.red, color.rgb.green,
                color.rgb.blue);
  return text;
}

void appendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

void appendEscaped(std::string& out, uint32_t c) {
  switch (c) {
    case '<':
      out += "&lt;";
      return;
    case '>':
      out += "&gt;";
      return;
    case '&':
      out += "&amp;";
      return;
    default:
      break;
  }
  // Control characters are not allowed in XML text; a cell never holds one, but be safe.
  if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE || c == 0xFFFF || c > 0x10FFFF) {
    out += "\xEF\xBF\xBD";  // U+FFFD
    return;
  }
  appendUtf8(out, c);
}

struct CellStyle {
  std::string fg, bg;
  bool bold = false, italic = false, underline = false, strike = false;
  bool operator==(const CellStyle& o) const {
    return fg == o.fg && bg == o.bg && bold == o.bold && italic == o.italic &&
           underline == o.underline && strike == o.strike;
  }
};

CellStyle styleOf(VTermScreen* screen, VTermScreenCell cell) {
  CellStyle style;
  bool defaultFg = VTERM_COLOR_IS_DEFAULT_FG(&cell.fg);
  bool defaultBg = VTERM_COLOR_IS_DEFAULT_BG(&cell.bg);
  vterm_screen_convert_color_to_rgb(screen, &cell.fg);
  vterm_screen_convert_color_to_rgb(screen, &cell.bg);
  style.fg = defaultFg ? DEFAULT_FG : hex(cell.fg);
  style.bg = defaultBg ? DEFAULT_BG : hex(cell.bg);
  if (cell.attrs.reverse) std::swap(style.fg, style.bg);
  style.bold = cell.attrs.bold;
  style.italic = cell.attrs.italic;
  style.underline = cell.attrs.underline != VTERM_UNDERLINE_OFF;
  style.strike = cell.attrs.strike;
  return style;
}

}  // namespace

std::string renderScreenSvg(const evidence::RenderedFrame& frame) {
  int rows = static_cast<int>(frame.rows);
  int columns = static_cast<int>(frame.columns);
  std::unique_ptr<VTerm, VTermDeleter> vt(vterm_new(rows, columns));
  vterm_set_utf8(vt.get(), 1);
  VTermScreen* screen = vterm_obtain_screen(vt.get());
  vterm_screen_reset(screen, 1);
  vterm_input_write(vt.get(), frame.serializedState.data(), frame.serializedState.size());

  int width = columns * CELL_WIDTH + 2 * PADDING;
  int height = rows * CELL_HEIGHT + 2 * PADDING;
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << ' ' << height << "\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"" << DEFAULT_BG << "\"/>\n"
      << "<g font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"15\" "
         "xml:space=\"preserve\">\n";
  for (int row = 0; row < rows; ++row) {
    int y = PADDING + row * CELL_HEIGHT;
    int col = 0;
    while (col < columns) {
      // A run of cells with one style becomes one <text> (and one background <rect>).
      VTermScreenCell cell;
      vterm_screen_get_cell(screen, VTermPos{row, col}, &cell);
      CellStyle style = styleOf(screen, cell);
      int start = col;
      // The run's cells; blank ones at its ends are left out of the text (a renderer would
      // drop or stretch them), the text placed at its first glyph's column instead.
      struct Glyph {
        int col, width;
        std::string text;
        bool blank;
      };
      std::vector<Glyph> glyphs;
      while (col < columns) {
        VTermScreenCell next;
        vterm_screen_get_cell(screen, VTermPos{row, col}, &next);
        if (!(styleOf(screen, next) == style)) break;
        int width = next.width > 1 ? next.width : 1;
        Glyph glyph{col, width, "", next.chars[0] == 0 || next.chars[0] == ' '};
        if (next.chars[0] == 0) {
          glyph.text = " ";
        } else {
          for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && next.chars[i] != 0; ++i)
            appendEscaped(glyph.text, next.chars[i]);
        }
        glyphs.push_back(std::move(glyph));
        col += width;
      }
      if (style.bg != DEFAULT_BG) {
        svg << "<rect x=\"" << PADDING + start * CELL_WIDTH << "\" y=\"" << y << "\" width=\""
            << (col - start) * CELL_WIDTH << "\" height=\"" << CELL_HEIGHT << "\" fill=\""
            << style.bg << "\"/>\n";
      }
      size_t first = 0, last = glyphs.size();
      while (first < last && glyphs[first].blank)
        ++first;
      while (last > first && glyphs[last - 1].blank)
        --last;
      if (first == last) continue;
      std::string text;
      for (size_t i = first; i < last; ++i)
        text += glyphs[i].text;
      int from = glyphs[first].col;
      int to = glyphs[last - 1].col + glyphs[last - 1].width;
      svg << "<text x=\"" << PADDING + from * CELL_WIDTH << "\" y=\"" << y + CELL_HEIGHT - 5
          << "\" textLength=\"" << (to - from) * CELL_WIDTH << "\" fill=\"" << style.fg << '"';
      if (style.bold) svg << " font-weight=\"bold\"";
      if (style.italic) svg << " font-style=\"italic\"";
      if (style.underline || style.strike) {
        svg << " text-decoration=\"" << (style.underline ? "underline" : "")
            << (style.underline && style.strike ? " " : "") << (style.strike ? "line-through" : "")
            << '"';
      }
      svg << '>' << text << "</text>\n";
    }
  }
  svg << "</g>\n</svg>\n";
  return svg.str();
}

}  // namespace rea::supervisor
