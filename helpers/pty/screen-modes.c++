#include "helpers/pty/screen-modes.h"

#include <algorithm>

namespace rea::helper {

const int TerminalModes::DEC_NUMBERS[DEC_MODE_COUNT] = {1, 5, 6, 7, 12, 25, 66, 69, 1004, 2004};
const uint32_t TerminalModes::DEC_DEFAULTS =
    bit(DEC_AUTOWRAP) | bit(DEC_BLINK) | bit(DEC_CURSOR_VISIBLE);

TerminalModes::TerminalModes(int columns, int rows) : columns(columns), rows(rows) {
  reset();
}

void TerminalModes::reset() {
  decModes = DEC_DEFAULTS;
  mouseTracking = 0;
  mouseEncoding = 0;
  insert = false;
  newline = false;
  keypadApplication = false;
  protectedPen = false;
  top = 0;
  bottom = -1;
  left = 0;
  right = -1;
}

void TerminalModes::setDecMode(int number, bool on) {
  switch (number) {
    case 1000:
    case 1002:
    case 1003:
      mouseTracking = on ? number : 0;
      return;
    case 1005:
    case 1006:
    case 1015:
      mouseEncoding = on ? number : 0;
      return;
  }
  for (int i = 0; i < DEC_MODE_COUNT; i++) {
    if (DEC_NUMBERS[i] == number) {
      uint32_t flag = 1u << i;
      decModes = on ? decModes | flag : decModes & ~flag;
      return;
    }
  }
}

void TerminalModes::normalize() {
  // Mirrors libvterm: a region that is empty, or the whole screen, is the default.
  if (bottom > rows) bottom = rows;
  if (bottom == rows && top == 0) bottom = -1;
  if ((bottom < 0 ? rows : bottom) <= top) {
    top = 0;
    bottom = -1;
  }
  if (right > columns) right = columns;
  if (right == columns && left == 0) right = -1;
  if ((right < 0 ? columns : right) <= left) {
    left = 0;
    right = -1;
  }
}

void TerminalModes::setRegion(const ControlSequence& sequence) {
  top = std::clamp(sequence.param(0, 1) - 1, 0, rows);
  bottom = sequence.param(1, -1);
  if (bottom == 0) bottom = -1;
  normalize();
}

void TerminalModes::setMargins(const ControlSequence& sequence) {
  left = std::clamp(sequence.param(0, 1) - 1, 0, columns);
  right = sequence.param(1, -1);
  if (right == 0) right = -1;
  normalize();
}

void TerminalModes::apply(const ControlSequence& sequence) {
  if (!sequence.csi) {
    if (sequence.intermediateCount != 0) return;
    switch (sequence.final) {
      case 'c':
        reset();
        break;
      case '=':
        keypadApplication = true;
        break;
      case '>':
        keypadApplication = false;
        break;
    }
    return;
  }
  char final = sequence.final;
  if (sequence.leader == '?' && sequence.intermediateCount == 0 && (final == 'h' || final == 'l')) {
    for (int i = 0; i < sequence.paramCount; i++)
      setDecMode(sequence.params[i], final == 'h');
    return;
  }
  if (sequence.plain() && (final == 'h' || final == 'l')) {
    for (int i = 0; i < sequence.paramCount; i++) {
      if (sequence.params[i] == 4) insert = final == 'h';
      if (sequence.params[i] == 20) newline = final == 'h';
    }
    return;
  }
  if (sequence.plain() && final == 'r') {
    setRegion(sequence);
  } else if (sequence.plain() && final == 's') {
    setMargins(sequence);
  } else if (sequence.leader == 0 && sequence.hasIntermediate('"') && final == 'q') {
    protectedPen = sequence.param(0, 0) == 1;
  } else if (sequence.leader == 0 && sequence.hasIntermediate('!') && final == 'p') {
    reset();
  }
}

void TerminalModes::resize(int newColumns, int newRows) {
  columns = newColumns;
  rows = newRows;
  normalize();
}

bool TerminalModes::usesAbsoluteCursor() const {
  return leftRightMargins() || bottom >= 0 || top != 0 || right >= 0 || left != 0 || origin();
}

void TerminalModes::appendRegion(std::string& out) const {
  if (leftRightMargins()) out += "\x1b[?69h";
  if (right >= 0 || left != 0) {
    // Margins kept while ?69 is off (libvterm keeps them for a later ?69h): CSI s sets them only
    // while ?69 is on (it saves the cursor otherwise, screen-corrections.h).
    if (!leftRightMargins()) out += "\x1b[?69h";
    out += "\x1b[" + std::to_string(left + 1) + ";" + std::to_string(right < 0 ? columns : right) +
           "s";
    if (!leftRightMargins()) out += "\x1b[?69l";
  }
  if (bottom >= 0 || top != 0) {
    out +=
        "\x1b[" + std::to_string(top + 1) + ";" + std::to_string(bottom < 0 ? rows : bottom) + "r";
  }
}

void TerminalModes::appendOtherModes(std::string& out) const {
  for (int i = 0; i < DEC_MODE_COUNT; i++) {
    if (DEC_NUMBERS[i] == 1004) {
      // Mouse modes sit between ?69 and ?1004 in numeric order.
      if (mouseTracking != 0) out += "\x1b[?" + std::to_string(mouseTracking) + "h";
      if (mouseEncoding != 0) out += "\x1b[?" + std::to_string(mouseEncoding) + "h";
    }
    if (i == DEC_ORIGIN || i == DEC_MARGINS) continue;  // cursor modes, emitted earlier
    uint32_t flag = 1u << i;
    if ((decModes & flag) != (DEC_DEFAULTS & flag)) {
      out += "\x1b[?" + std::to_string(DEC_NUMBERS[i]) + ((decModes & flag) ? "h" : "l");
    }
  }
  if (insert) out += "\x1b[4h";
  if (newline) out += "\x1b[20h";
  if (keypadApplication) out += "\x1b=";
  if (protectedPen) out += "\x1b[1\"q";
}

}  // namespace rea::helper
