#include "helpers/pty/screen-corrections.h"

#include <algorithm>

namespace rea::helper {

bool mayNeedCorrection(const ControlSequence& sequence) {
  if (!sequence.csi) return false;
  if (sequence.leader == '?' && sequence.intermediateCount == 0 && sequence.final == 'h') {
    return sequence.paramCount == 1 &&
           (sequence.params[0] == 47 || sequence.params[0] == 1047 || sequence.params[0] == 1049);
  }
  if (!sequence.plain()) return false;
  switch (sequence.final) {
    case 'r':
    case 'A':
    case 'B':
    case 'E':
    case 'F':
    case 's':
    case 'u':
      return true;
    default:
      return false;
  }
}

std::optional<std::string> correctedSequence(const ControlSequence& sequence, int cursorRow,
                                             bool alternate, const TerminalModes& modes) {
  if (!mayNeedCorrection(sequence)) return std::nullopt;
  if (sequence.final == 'h') {
    // Entering the alternate screen while in it: xterm.js and tmux keep what it shows, and the
    // cursor ?1049l restores stays the one saved on entering (xterm.js saves this one in the
    // alternate buffer's own slot); libvterm erases the screen and saves the cursor again.
    return alternate ? std::optional<std::string>("") : std::nullopt;
  }
  if (sequence.final == 's' || sequence.final == 'u') {
    // SCOSC/SCORC: libvterm 0.1.4 takes every CSI s for DECSLRM (setting margins and homing the
    // cursor) and ignores CSI u. xterm saves and restores the cursor with them unless DECLRMM
    // (?69) is set, tmux always: as DECSC/DECRC do.
    if (sequence.final == 's' && modes.leftRightMargins()) return std::nullopt;
    return std::string(sequence.final == 's' ? "\x1b"
                                               "7"
                                             : "\x1b"
                                               "8");
  }
  int rows = modes.screenRows();
  if (sequence.final == 'r') {
    // xterm: top defaults (and 0) to 1, bottom defaults (and 0, and past the screen) to the last
    // row; a region that is not at least two rows is ignored.
    int top = std::max(sequence.param(0, 1), 1);
    int bottom = sequence.param(1, 0);
    if (bottom <= 0 || bottom > rows) bottom = rows;
    // The whole screen (a reset) always goes through: on a one-row screen it is what keeps
    // libvterm's region valid after a resize (the Renderer sends it then).
    if (bottom > top || (top == 1 && bottom == rows)) return std::nullopt;
    return std::string();
  }
  int count = std::max(sequence.param(0, 1), 1);
  int top = modes.regionTop();
  int bottom = modes.regionBottom() - 1;
  bool up = sequence.final == 'A' || sequence.final == 'F';
  int target;
  if (up) {
    if (cursorRow < top || cursorRow - count >= top) return std::nullopt;
    target = top;
  } else {
    if (cursorRow > bottom || cursorRow + count <= bottom) return std::nullopt;
    target = bottom;
  }
  // VPA counts from the region's top in origin mode.
  int vpa = target - (modes.origin() ? top : 0) + 1;
  std::string replacement = sequence.final == 'E' || sequence.final == 'F' ? "\r" : "";
  return replacement + "\x1b[" + std::to_string(vpa) + "d";
}

}  // namespace rea::helper
