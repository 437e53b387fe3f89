// The compiled-in width tables (helpers/pty/screen-widths.h) against this machine's glibc and
// libvterm: when either changes, scripts/gen-screen-widths.sh must be run again.

#include "helpers/pty/screen-cell.h"  // appendUtf8
#include "helpers/pty/screen-renderer.h"
#include "helpers/pty/screen-widths.h"

#include <gtest/gtest.h>
#include <locale.h>
#include <vterm.h>
#include <wchar.h>

#include <string>

namespace rea::helper {
namespace {

std::string utf8(uint32_t cp) {
  std::string out;
  appendUtf8(out, cp);
  return out;
}

TEST(ScreenWidths, TableMatchesThisMachine) {
  locale_t utf8Locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nullptr);
  if (utf8Locale == nullptr) GTEST_SKIP() << "no C.UTF-8 locale";
  locale_t previous = uselocale(utf8Locale);
  VTerm* vt = vterm_new(4, 10);
  vterm_set_utf8(vt, 1);
  VTermState* state = vterm_obtain_state(vt);
  vterm_state_reset(state, 1);
  int mismatches = 0;
  for (uint32_t cp = 0xa0; cp <= 0x10ffff && mismatches < 5; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    int glibc = wcwidth(static_cast<wchar_t>(cp));
    std::string bytes = "\x1b[2;5H" + utf8(cp);
    vterm_input_write(vt, bytes.data(), bytes.size());
    VTermPos pos;
    vterm_state_get_cursorpos(state, &pos);
    int libvterm = pos.col - 4;
    int expected = glibc == 2 && libvterm == 1 ? 2 : glibc == 1 && libvterm == 2 ? 1 : 0;
    if (isWideCodePoint(cp) != (glibc == 2) || widthCorrection(cp) != expected) {
      ADD_FAILURE() << "U+" << std::hex << cp << ": run scripts/gen-screen-widths.sh";
      mismatches++;
    }
  }
  vterm_free(vt);
  uselocale(previous);
  freelocale(utf8Locale);
}

TEST(ScreenWidths, NewerEmojiTakeTwoColumns) {
  Renderer renderer(10, 2, 0);
  renderer.feed(
      "\xf0\x9f\xab\xa0"
      "ab\r\x1b[2CY");  // U+1FAE0 then a move to column 2
  RenderedScreen screen = renderer.snapshot();
  EXPECT_EQ(screen.lines[0], "\xf0\x9f\xab\xa0Yb      ");
  // The stand-in never shows: the real character is in serialized_state too.
  EXPECT_NE(screen.serializedState.find("\xf0\x9f\xab\xa0"), std::string::npos);
  Renderer copy(10, 2, 0);
  copy.feed(screen.serializedState);
  EXPECT_EQ(copy.snapshot().lines, screen.lines);
}

TEST(ScreenWidths, ACharacterSplitAcrossChunksIsMeasuredWhole) {
  Renderer renderer(10, 2, 0);
  renderer.feed("\xf0\x9f");
  renderer.feed("\xab");
  renderer.feed(
      "\xa0"
      "ab\r\x1b[2CY");
  EXPECT_EQ(renderer.snapshot().lines[0], "\xf0\x9f\xab\xa0Yb      ");
}

TEST(ScreenWidths, AWideCharacterWithoutRoomIsDroppedWhenAutowrapIsOff) {
  Renderer renderer(5, 2, 0);
  renderer.feed("\x1b[?7labcd\xe6\x97\xa5Z\r\nnext");
  RenderedScreen screen = renderer.snapshot();
  EXPECT_EQ(screen.lines[0], "abcdZ");
  EXPECT_EQ(screen.lines[1], "next ");
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenWidths, AWideCharacterInTheLastTwoColumnsLeavesTheCursorOnTheLastWithoutAutowrap) {
  // xterm.js and tmux: the cursor stays on the last column, so the next wide character has no
  // room (dropped) and a narrow one overwrites the glyph's right half (libvterm kept the cursor
  // on the glyph's first column and wrote the next one over it).
  Renderer renderer(6, 2, 0);
  renderer.feed("\x1b[?7labcd\xe5\xad\x97");
  RenderedScreen frame = renderer.snapshot();
  EXPECT_EQ(frame.cursorX, 5);
  renderer.feed("\xe9\x9b\xaa");
  EXPECT_EQ(renderer.snapshot().lines[0], "abcd\xe5\xad\x97 ");  // padded per cell
  renderer.feed("\r\n\x1b[2Cab\xe5\xad\x97\xe5\xad\x97");
  EXPECT_EQ(renderer.snapshot().lines[1], "  ab\xe5\xad\x97 ");
}

}  // namespace
}  // namespace rea::helper
