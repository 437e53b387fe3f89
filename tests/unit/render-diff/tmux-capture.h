#pragma once
// The text of a line from `capture-pane -p -e`. Plain `capture-pane -p` prints a cell drawn in
// the DEC Special Graphics set (ESC ( 0, the line drawing of dialog, htop's meters, every curses
// box) as the ASCII letter it was sent as ("lqqk"), where a terminal (xterm, libvterm, our
// renderer) shows the drawing character ("┌──┐"). With -e tmux marks such cells with SO/SI
// (^N ... ^O); this maps them through the same table xterm and libvterm use and drops the SGR
// sequences -e adds, so what remains is the text a terminal shows.

#include <string>
#include <string_view>

namespace rea::test {

inline std::string decSpecialGraphics(char c) {
  // 0x60-0x7e, as in xterm and libvterm's encoding tables; other characters are unchanged.
  static const char* const TABLE[] = {"◆", "▒", "␉", "␌", "␍", "␊", "°", "±", "␤", "␋", "┘",
                                      "┐", "┌", "└", "┼", "⎺", "⎻", "─", "⎼", "⎽", "├", "┤",
                                      "┴", "┬", "│", "≤", "≥", "π", "≠", "£", "·"};
  if (c >= 0x60 && c <= 0x7e) return TABLE[c - 0x60];
  return std::string(1, c);
}

// `graphics` carries the SO/SI state from one line of a capture to the next: tmux marks only
// where the state changes, and a run of line drawing wrapped onto the next row continues there.
inline std::string capturedText(std::string_view line, bool& graphics) {
  std::string text;
  for (size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (c == '\x0e' || c == '\x0f') {
      graphics = c == '\x0e';
    } else if (c == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      // A CSI sequence (SGR): parameters and intermediates up to the final byte 0x40-0x7e.
      i += 2;
      while (i < line.size() && !(line[i] >= 0x40 && line[i] <= 0x7e))
        i++;
    } else {
      text += graphics ? decSpecialGraphics(c) : std::string(1, c);
    }
  }
  return text;
}

}  // namespace rea::test
