// Where the Renderer corrects libvterm 0.1.4's state layer to move as xterm and tmux do
// (screen-corrections.h; each case is also checked against tmux in tests/unit/render-diff).

#include "helpers/pty/screen-renderer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rea::helper {
namespace {

using ::testing::ElementsAre;

RenderedScreen renderCorrected(std::string_view input, int columns, int rows) {
  Renderer renderer(columns, rows, 100);
  renderer.feed(input);
  return renderer.snapshot();
}

TEST(ScreenCorrections, IgnoresAOneRowScrollRegion) {
  // xterm and tmux ignore DECSTBM 3;3: the cursor stays and line feeds scroll the whole screen
  // (libvterm made row 3 a region of its own, scrolling nothing else).
  RenderedScreen frame = renderCorrected("a\r\n\x1b[3;3rb\x1b[3;1Hc\nd\ne", 4, 3);
  EXPECT_THAT(frame.lines, ElementsAre("c   ", " d  ", "  e "));
  EXPECT_EQ(frame.cursorY, 2);
  EXPECT_EQ(frame.serializedState.find("r"), std::string::npos);
}

TEST(ScreenCorrections, IgnoresAScrollRegionWhoseBottomIsAboveItsTop) {
  // libvterm reset the region and homed the cursor ("b" went to the top left).
  RenderedScreen frame = renderCorrected("a\x1b[4;2rb", 4, 5);
  EXPECT_EQ(frame.lines[0], "ab  ");
  EXPECT_EQ(frame.cursorX, 2);
  EXPECT_EQ(frame.cursorY, 0);
}

TEST(ScreenCorrections, CursorUpAndDownStopAtTheScrollRegionsMargins) {
  // Region rows 2-4 (1-based) on 6 rows: from inside it CUU stops at row 2, CUD at row 4,
  // CPL/CNL likewise (at column 0); from outside they go to the screen's edge.
  RenderedScreen frame =
      renderCorrected("\x1b[2;4r\x1b[3;3H\x1b[9Au\x1b[9Bd\x1b[9Fp\x1b[9En\x1b[6;2H\x1b[9At", 6, 6);
  EXPECT_THAT(frame.lines, ElementsAre("      ", "ptu   ", "      ", "n  d  ", "      ", "      "));
  EXPECT_EQ(frame.cursorY, 1);  // CUU from below the region stops at its top margin too
  RenderedScreen outside = renderCorrected("\x1b[2;4r\x1b[1;1H\x1b[9Ba\x1b[5;1H\x1b[2Bb", 6, 6);
  EXPECT_EQ(outside.lines[3], "a     ");  // from above the region: stops at its bottom
  EXPECT_EQ(outside.lines[5], "b     ");  // from below it: the screen's last row
}

TEST(ScreenCorrections, CursorUpAtTheTopMarginEndsAPendingWrap) {
  RenderedScreen frame = renderCorrected("\x1b[2;3r\x1b[2;1Habcd\x1b[A", 4, 4);
  EXPECT_EQ(frame.cursorX, 3);  // back on the last column: no wrap pending any more
  EXPECT_EQ(frame.cursorY, 1);
}

TEST(ScreenCorrections, CursorDownInOriginModeStopsAtTheBottomMargin) {
  RenderedScreen frame = renderCorrected("\x1b[2;4r\x1b[?6h\x1b[9Bz", 4, 6);
  EXPECT_EQ(frame.lines[3], "z   ");
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenCorrections, AChangeOfRowsResetsTheScrollRegion) {
  // xterm and tmux forget DECSTBM when the rows change (libvterm kept 2;4, clamped): line feeds
  // at the bottom then scroll the whole screen.
  Renderer renderer(4, 6, 100);
  renderer.feed("\x1b[2;4r\x1b[4;1Ha\nb\nc");
  renderer.resize(4, 3);
  renderer.feed("\x1b[3;1Hx\ny\nz");
  RenderedScreen frame = renderer.snapshot();
  EXPECT_THAT(frame.lines, ElementsAre("x c ", " y  ", "  z "));
  EXPECT_EQ(frame.serializedState.find("r"), std::string::npos);
  // A change of columns alone keeps the region (as tmux does).
  Renderer wider(4, 6, 100);
  wider.feed("\x1b[2;4r");
  wider.resize(5, 6);
  EXPECT_NE(wider.snapshot().serializedState.find("\x1b[2;4r"), std::string::npos);
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenCorrections, CsiSAndCsiUSaveAndRestoreTheCursor) {
  // SCOSC/SCORC as in xterm (DECLRMM off) and tmux; libvterm homed the cursor for CSI s and
  // ignored CSI u ("XYZ" at the top left).
  RenderedScreen frame = renderCorrected("ab\x1b[sXY\x1b[uZ", 6, 2);
  EXPECT_EQ(frame.lines[0], "abZY  ");
  EXPECT_EQ(frame.cursorX, 3);
  EXPECT_EQ(renderCorrected("ab\x1b"
                            "7XY\x1b[uZ",
                            6, 2)
                .lines[0],
            "abZY  ");
  EXPECT_EQ(renderCorrected("ab\x1b[sXY\x1b"
                            "8Z",
                            6, 2)
                .lines[0],
            "abZY  ");
}

TEST(ScreenCorrections, CsiSSetsMarginsWhileDeclrmmIsOn) {
  RenderedScreen frame = renderCorrected("ab\x1b[?69h\x1b[2;4sX", 6, 2);
  EXPECT_EQ(frame.lines[0], "Xb    ");  // DECSLRM homes the cursor
  EXPECT_NE(frame.serializedState.find("\x1b[2;4s"), std::string::npos);
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenCorrections, EnteringTheAlternateScreenAgainKeepsIt) {
  // xterm.js and tmux: ?1049h, ?1047h or ?47h while the alternate screen is active change
  // nothing, not even the cursor ?1049l restores; libvterm erased the screen.
  for (const char* enter : {"\x1b[?1049h", "\x1b[?1047h", "\x1b[?47h"}) {
    RenderedScreen frame = renderCorrected(std::string("\x1b[?1049hkept\r\n") + enter + "x", 6, 2);
    EXPECT_TRUE(frame.alternate) << enter;
    EXPECT_EQ(frame.lines[0], "kept  ") << enter;
    EXPECT_EQ(frame.lines[1], "x     ") << enter;
  }
  // ?1049l puts the cursor back where the first ?1049h found it.
  RenderedScreen left = renderCorrected("ab\x1b[?1049hcd\x1b[?1049h\x1b[?1049l", 6, 2);
  EXPECT_FALSE(left.alternate);
  EXPECT_EQ(left.cursorX, 2);
  EXPECT_EQ(left.cursorY, 0);
}

}  // namespace
}  // namespace rea::helper
