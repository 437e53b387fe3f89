#pragma once
// TerminalModes: the terminal modes that serialized_state records, tracked from the output
// stream (ControlScanner sequences), because libvterm 0.1.4 keeps most of them private. Defaults
// are libvterm's after a reset, which is also what a fresh Renderer starts with, so only
// non-default values need encoding.
//
// Tracked: DEC private modes ?1 (cursor keys), ?5 (reverse video), ?6 (origin), ?7 (autowrap,
// default on), ?12 (cursor blink, default on), ?25 (cursor visible, default on), ?66 (numeric
// keypad), ?69 (left/right margins), mouse tracking ?1000/?1002/?1003 (one at a time; resetting
// any turns tracking off, as libvterm does), mouse encoding ?1005/?1006/?1015 (likewise), ?1004
// (focus events), ?2004 (bracketed paste); ANSI modes 4 (insert) and 20 (newline); keypad
// application mode (ESC = / ESC >); DECSCA (protected pen); the scroll region (DECSTBM) and the
// left/right margins (DECSLRM, which libvterm applies to every CSI s). RIS (ESC c) and DECSTR
// (CSI ! p) restore all defaults. Not tracked (so not in serialized_state): the saved cursor
// (DECSC), tab stops, character sets, the title, the cursor shape.
//
// Errors: none.

#include "helpers/pty/screen-scanner.h"

#include <cstdint>
#include <string>

namespace rea::helper {

class TerminalModes {
 public:
  TerminalModes(int columns, int rows);

  void apply(const ControlSequence& sequence);
  // Updates the modes for one sequence; sequences that change no tracked mode are ignored.

  void resize(int columns, int rows);
  // Clamps the scroll region and margins to the new size, as libvterm does.

  void appendRegion(std::string& out) const;
  // Appends ?69, the margins (DECSLRM) and the scroll region (DECSTBM) where not the default,
  // in that order. DECSLRM and DECSTBM move the cursor, and so does setting origin mode (?6),
  // which the caller emits itself (see screen-serializer.c++).

  void appendOtherModes(std::string& out) const;
  // Appends every other non-default mode, in a fixed order (DEC modes by number, then ANSI modes,
  // then keypad, then DECSCA).

  bool usesAbsoluteCursor() const;
  // True if appendRegion() emits anything or origin mode is set.

  bool origin() const { return (decModes & bit(DEC_ORIGIN)) != 0; }
  bool autowrap() const { return (decModes & bit(DEC_AUTOWRAP)) != 0; }
  bool insertMode() const { return insert; }
  bool protecting() const { return protectedPen; }  // DECSCA: new glyphs are protected
  bool leftRightMargins() const { return (decModes & bit(DEC_MARGINS)) != 0; }
  int screenRows() const { return rows; }
  bool hasScrollRegion() const { return top != 0 || bottom >= 0; }
  // DECSTBM set to less than the whole screen.
  int regionTop() const { return top; }
  int regionLeft() const { return leftRightMargins() ? left : 0; }
  int regionBottom() const { return bottom < 0 ? rows : bottom; }
  int regionRight() const { return leftRightMargins() && right >= 0 ? right : columns; }
  int marginLeft() const { return left; }
  // The left margin as set by DECSLRM, whether ?69 makes it apply or not.

 private:
  // Index of each tracked DEC mode in decModes.
  enum DecMode : int {
    DEC_CURSOR_KEYS,
    DEC_REVERSE,
    DEC_ORIGIN,
    DEC_AUTOWRAP,
    DEC_BLINK,
    DEC_CURSOR_VISIBLE,
    DEC_KEYPAD,
    DEC_MARGINS,
    DEC_FOCUS,
    DEC_PASTE,
    DEC_MODE_COUNT
  };
  static constexpr uint32_t bit(DecMode mode) { return 1u << mode; }
  static const int DEC_NUMBERS[DEC_MODE_COUNT];
  static const uint32_t DEC_DEFAULTS;

  int columns;
  int rows;
  uint32_t decModes;
  int mouseTracking = 0;  // 0, 1000, 1002 or 1003
  int mouseEncoding = 0;  // 0, 1005, 1006 or 1015
  bool insert = false;
  bool newline = false;
  bool keypadApplication = false;
  bool protectedPen = false;
  int top = 0;
  int bottom = -1;  // exclusive; -1 = the last row
  int left = 0;
  int right = -1;  // exclusive; -1 = the last column

  void reset();
  void setDecMode(int number, bool on);
  void setRegion(const ControlSequence& sequence);
  void setMargins(const ControlSequence& sequence);
  void normalize();
};

}  // namespace rea::helper
