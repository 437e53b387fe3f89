// Named differential cases beyond issue 24's five: where libvterm 0.1.4 (or the Renderer's model
// before) did not do what xterm, xterm.js and tmux do, and the Renderer was changed
// (screen-corrections.h, ScreenModel::resize, screen-reflow.c++). Each also has a unit test in
// tests/unit/pty that does not need tmux.

#include "tests/unit/render-diff/replay.h"

namespace rea::test {
namespace {

TEST(RenderDiff, ScrollRegionsOfOneRowAreIgnored) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("one-row-region", 10, 5,
                           {out("a\r\n\x1b[3;3rb\x1b[3;1Hc\nd\ne\nf\ng"), out("\x1b[4;2rh\ni")}));
}

TEST(RenderDiff, CursorMovesStopAtTheScrollRegionsMargins) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("margins", 6, 6,
                           {out("\x1b[2;4r\x1b[3;3H\x1b[9Au\x1b[9Bd\x1b[9Fp\x1b[9En"),
                            out("\x1b[6;2H\x1b[9At\x1b[1;1H\x1b[9Ba\x1b[5;1H\x1b[2Bb"),
                            out("\x1b[2;1Habcdef\x1b[A"), out("\x1b[?6h\x1b[9Bz\x1b[?6l\x1b[r")}));
}

TEST(RenderDiff, AChangeOfRowsResetsTheScrollRegion) {
  REQUIRE_TMUX();
  expectSame(*tmux,
             single("region-resize", 10, 6,
                    {out("\x1b[2;4r\x1b[4;1Ha\nb\nc"), resize(10, 3), out("\x1b[3;1Hx\ny\nz"),
                     out("\x1b[2;3r"), resize(12, 3), out("\x1b[3;1Hv\nw")}));
}

TEST(RenderDiff, CsiSAndCsiUSaveAndRestoreTheCursor) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("scosc", 10, 3,
                           {out("ab\x1b[sXY\x1b[uZ"),
                            out("\r\ncd\x1b"
                                "7XY\x1b[uZ"),
                            out("\r\nef\x1b[sXY\x1b"
                                "8Z")}));
}

TEST(RenderDiff, EnteringTheAlternateScreenAgainKeepsIt) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("alternate-again", 10, 3,
                           {out("ab\x1b[?1049hkept\r\n"), out("\x1b[?1049hx"), out("\x1b[?1047hy"),
                            out("\x1b[?47hz"), out("\x1b[?1049l")}));
}

TEST(RenderDiff, AResizeChangesTheRowsBeforeItReflows) {
  // tmux and xterm.js resize the rows (dropping rows below the cursor, pulling rows back from
  // scrollback) at the old width, then reflow; these generated transcripts differed while the
  // Renderer reflowed first (and 114, which now differs for another cause:
  // TMUX_KEEPS_THE_JOIN_ON_THE_WRAPPING_ROW).
  REQUIRE_TMUX();
  for (unsigned seed : {26u, 61u, 73u, 81u, 133u, 185u, 219u})
    expectSame(*tmux, generateTranscript(seed, true));
}

TEST(RenderDiff, AWideCharacterInTheLastTwoColumnsWithoutAutowrap) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("nowrap-wide-edge", 11, 3,
                           {out("\x1b[?7l字字字字字字字"), out("\r\nabcdefghiｆｕｌｌ"),
                            out("\r\nabcdefghi雪x")}));
}

TEST(RenderDiff, TheNormalBufferIsReflowedUnderTheAlternateScreen) {
  REQUIRE_TMUX();
  expectSame(*tmux,
             single("alternate-reflow", 10, 6,
                    {out("abcdefghijkl\r\n12\x1b[?1049hvim"), resize(20, 6), out("\x1b[?1049lX"),
                     out("\x1b[?1049h"), resize(5, 6), out("\x1b[?1049lY")}));
}

TEST(RenderDiff, ADeletedContinuationRowTakesItsJoinAlong) {
  REQUIRE_TMUX();
  std::string wide;
  for (int i = 0; i < 21; i++)
    wide += "字";
  expectSame(*tmux, single("deleted-continuation", 13, 7, {out(wide + "\r\x1b[M"), resize(20, 6)}));
}

TEST(RenderDiff, BlankCellsWithABackgroundDoNotMakeAReflowedLineWrap) {
  REQUIRE_TMUX();
  expectSame(*tmux, single("background-reflow", 27, 4,
                           {out("\x1b[48;2;10;20;30m\x1b[4;1Hline\n\nend\x1b[m"), resize(26, 5),
                            resize(12, 5), resize(30, 4)}));
}

}  // namespace
}  // namespace rea::test
