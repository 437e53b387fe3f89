#pragma once
// Character widths as programs measure them: glibc 2.36's wcwidth under C.UTF-8 (Unicode 15),
// which is also what tmux uses. libvterm 0.1.4 measures with an older table, so some characters
// (newer emoji: U+1F972, U+1FAE0, ...) would take one column in libvterm and two in the program
// that printed them, and everything after them on the line would be one column off. The Renderer
// corrects that by handing libvterm a stand-in of the right width (widthCorrection) and putting
// the real character back in the cell.
//
// The tables are compiled in (screen-width-table.c++, made by scripts/gen-screen-widths.sh), so
// Evidence does not depend on the locales a machine has installed, and no locale data has to be
// loaded before the pty helper's seccomp lock-down.
//
// Errors: none.

#include <cstddef>
#include <cstdint>

namespace rea::helper {

namespace widths {
struct WidthRange {
  uint32_t first;
  uint32_t last;  // inclusive
};
extern const WidthRange WIDE[];
extern const size_t WIDE_COUNT;
extern const WidthRange WIDENED[];
extern const size_t WIDENED_COUNT;
extern const WidthRange NARROWED[];
extern const size_t NARROWED_COUNT;
extern const uint32_t FIRST_CORRECTED;  // the lowest code point in WIDENED or NARROWED
bool contains(const WidthRange* ranges, size_t count, uint32_t codePoint);
}  // namespace widths

inline bool isWideCodePoint(uint32_t codePoint) {
  // Two columns for glibc. Nothing below U+1100 is.
  return codePoint >= 0x1100 && widths::contains(widths::WIDE, widths::WIDE_COUNT, codePoint);
}

inline int widthCorrection(uint32_t codePoint) {
  // 2 if glibc gives the code point two columns and libvterm one, 1 if the other way round,
  // 0 if they agree (or glibc's width is 0 or undefined: libvterm's is kept then).
  if (codePoint < widths::FIRST_CORRECTED) return 0;
  if (widths::contains(widths::WIDENED, widths::WIDENED_COUNT, codePoint)) return 2;
  if (widths::contains(widths::NARROWED, widths::NARROWED_COUNT, codePoint)) return 1;
  return 0;
}

}  // namespace rea::helper
