#include "helpers/pty/screen-renderer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace rea::helper {
namespace {

using testing::ElementsAre;

std::string pad(std::string text, size_t units) {
  // Pads ASCII-only test text to `units` columns.
  text.append(units - text.size(), ' ');
  return text;
}

RenderedScreen render(std::string_view input, int columns = 80, int rows = 24,
                      int scrollback = 100) {
  Renderer renderer(columns, rows, scrollback);
  renderer.feed(input);
  return renderer.snapshot();
}

TEST(ScreenRenderer, StartsBlankWithTheRequestedSize) {
  RenderedScreen frame = render("", 10, 3);
  EXPECT_EQ(frame.columns, 10);
  EXPECT_EQ(frame.rows, 3);
  EXPECT_EQ(frame.cursorX, 0);
  EXPECT_EQ(frame.cursorY, 0);
  EXPECT_FALSE(frame.alternate);
  EXPECT_THAT(frame.lines, ElementsAre("          ", "          ", "          "));
  EXPECT_EQ(frame.serializedState, "");
}

TEST(ScreenRenderer, RendersTheSpecExamplesForAPrompt) {
  RenderedScreen frame = render("prompt> ");
  EXPECT_EQ(frame.lines[0], pad("prompt> ", 80));
  EXPECT_EQ(frame.lines[1], pad("", 80));
  EXPECT_EQ(frame.serializedState, "prompt> ");
  EXPECT_EQ(frame.cursorX, 8);
  EXPECT_EQ(frame.cursorY, 0);
}

TEST(ScreenRenderer, RendersTheSpecExampleWithAWideCharacterAndCrLf) {
  RenderedScreen frame = render("prompt> input:answer unicode:\xe9\x9b\xaa\r\n");
  // 雪 takes two columns but one UTF-16 code unit: 30 units of text, then 50 spaces.
  EXPECT_EQ(frame.lines[0], "prompt> input:answer unicode:\xe9\x9b\xaa" + std::string(50, ' '));
  EXPECT_EQ(frame.serializedState, "prompt> input:answer unicode:\xe9\x9b\xaa\x1b[1B\x1b[31D");
  EXPECT_EQ(frame.cursorX, 0);
  EXPECT_EQ(frame.cursorY, 1);
}

TEST(ScreenRenderer, KeepsColoursAndAttributesOutOfLines) {
  RenderedScreen frame =
      render("\x1b[1;4;31;42mred\x1b[0m \x1b[38;5;208;48;2;1;2;3mx\x1b[7m\x1b[Ky", 12, 2);
  EXPECT_EQ(frame.lines[0], "red xy      ");
  EXPECT_EQ(frame.lines[1], "            ");
}

TEST(ScreenRenderer, CountsAWideCharacterOnceAndSkipsItsSpacer) {
  RenderedScreen frame = render("\xe4\xb8\xad\xe6\x96\x87|", 10, 1);
  EXPECT_EQ(frame.lines[0], "\xe4\xb8\xad\xe6\x96\x87|       ");  // 3 units + 7 spaces
  EXPECT_EQ(frame.cursorX, 5);
}

TEST(ScreenRenderer, CountsAnAstralCharacterAsTwoUtf16Units) {
  RenderedScreen frame = render("\xf0\x9f\x98\x80", 6, 1);  // U+1F600, two columns
  EXPECT_EQ(frame.lines[0], "\xf0\x9f\x98\x80    ");
  EXPECT_EQ(frame.cursorX, 2);
}

TEST(ScreenRenderer, WrapsAWideCharacterThatDoesNotFitInTheLastColumn) {
  RenderedScreen frame = render("abc\xe9\x9b\xaa", 4, 2);
  EXPECT_EQ(frame.lines[0], "abc ");
  EXPECT_EQ(frame.lines[1], "\xe9\x9b\xaa   ");
}

TEST(ScreenRenderer, EmptiesTheOtherHalfOfAnOverwrittenWideCharacter) {
  // Overwrite the right half of 雪: the left half must not survive as a one-column 雪.
  RenderedScreen frame = render("\xe9\x9b\xaa\xe9\x9b\xaa\x1b[1;2Hx\x1b[1;3Hy", 6, 1);
  EXPECT_EQ(frame.lines[0], " xy   ");
}

TEST(ScreenRenderer, KeepsCombiningMarksWithTheirBase) {
  RenderedScreen frame = render("e\xcc\x81x", 5, 1);
  // One space per empty cell: the mark makes the line one UTF-16 unit longer than the width.
  EXPECT_EQ(frame.lines[0], "e\xcc\x81x   ");
  EXPECT_EQ(frame.cursorX, 2);
}

TEST(ScreenRenderer, CombinesAMarkThatArrivesInALaterChunk) {
  Renderer renderer(5, 1, 0);
  renderer.feed("e");
  renderer.feed("\xcc");
  renderer.feed("\x81");
  EXPECT_EQ(renderer.snapshot().lines[0], "e\xcc\x81    ");  // one space per empty cell
}

TEST(ScreenRenderer, EntersAndLeavesTheAlternateScreen) {
  Renderer renderer(10, 3, 10);
  renderer.feed("main\r\nsecond");
  renderer.feed("\x1b[?1049h");
  RenderedScreen alternate = renderer.snapshot();
  EXPECT_TRUE(alternate.alternate);
  EXPECT_THAT(alternate.lines, ElementsAre("          ", "          ", "          "));
  renderer.feed("\x1b[Halt");
  EXPECT_EQ(renderer.snapshot().lines[0], "alt       ");
  renderer.feed("\x1b[?1049l");
  RenderedScreen normal = renderer.snapshot();
  EXPECT_FALSE(normal.alternate);
  EXPECT_THAT(normal.lines, ElementsAre("main      ", "second    ", "          "));
  EXPECT_EQ(normal.cursorX, 6);
  EXPECT_EQ(normal.cursorY, 1);
}

TEST(ScreenRenderer, ScrollsOnlyInsideTheScrollRegion) {
  RenderedScreen frame = render("top\r\na\r\nb\r\nc\r\nbottom\x1b[2;4r\x1b[4;1H\nnew", 8, 5, 10);
  EXPECT_THAT(frame.lines, ElementsAre("top     ", "b       ", "c       ", "new     ", "bottom  "));
  // A region that does not start at the top row sends nothing to scrollback.
  EXPECT_EQ(frame.serializedState.find("a"), std::string::npos);
}

TEST(ScreenRenderer, SendsRowsScrolledOutOfATopRegionToScrollback) {
  Renderer renderer(8, 4, 10);
  renderer.feed("one\r\ntwo\r\nthree\r\nfixed\x1b[1;3r\x1b[3;1H\nfour");
  RenderedScreen frame = renderer.snapshot();
  EXPECT_THAT(frame.lines, ElementsAre("two     ", "three   ", "four    ", "fixed   "));
  EXPECT_EQ(frame.serializedState.rfind("one\r\ntwo\r\nthree\r\nfour\r\nfixed", 0), 0u)
      << frame.serializedState;
}

TEST(ScreenRenderer, ErasesInLineAndInDisplay) {
  EXPECT_EQ(render("abcdef\x1b[4G\x1b[K", 8, 1).lines[0], "abc     ");
  EXPECT_EQ(render("abcdef\x1b[4G\x1b[1K", 8, 1).lines[0], "    ef  ");
  EXPECT_EQ(render("abcdef\x1b[4G\x1b[2K", 8, 1).lines[0], "        ");
  EXPECT_THAT(render("ab\r\ncd\r\nef\x1b[2;2H\x1b[J", 4, 3).lines,
              ElementsAre("ab  ", "c   ", "    "));
  EXPECT_THAT(render("ab\r\ncd\r\nef\x1b[2;2H\x1b[1J", 4, 3).lines,
              ElementsAre("    ", "    ", "ef  "));
  EXPECT_THAT(render("ab\r\ncd\r\nef\x1b[2J", 4, 3).lines, ElementsAre("    ", "    ", "    "));
}

TEST(ScreenRenderer, InsertsAndDeletesCharactersAndLines) {
  EXPECT_EQ(render("abcdef\x1b[3G\x1b[2@", 8, 1).lines[0], "ab  cdef");
  EXPECT_EQ(render("abcdef\x1b[3G\x1b[2P", 8, 1).lines[0], "abef    ");
  EXPECT_THAT(render("1\r\n2\r\n3\x1b[2;1H\x1b[L", 2, 3).lines, ElementsAre("1 ", "  ", "2 "));
  EXPECT_THAT(render("1\r\n2\r\n3\x1b[2;1H\x1b[M", 2, 3).lines, ElementsAre("1 ", "3 ", "  "));
}

TEST(ScreenRenderer, RestoresASavedCursor) {
  RenderedScreen frame = render(
      "ab\x1b"
      "7cd\x1b"
      "8X",
      6, 1);
  EXPECT_EQ(frame.lines[0], "abXd  ");
  EXPECT_EQ(frame.cursorX, 3);
}

TEST(ScreenRenderer, MovesDownWithoutReturningOnALineFeed) {
  EXPECT_THAT(render("ab\ncd", 6, 2).lines, ElementsAre("ab    ", "  cd  "));
}

TEST(ScreenRenderer, ResizesToMoreAndFewerColumns) {
  Renderer renderer(6, 2, 10);
  renderer.feed("abcdef\r\n\xe9\x9b\xaa\xe9\x9b\xaa\xe9\x9b\xaa");
  renderer.resize(3, 2);
  RenderedScreen narrow = renderer.snapshot();
  // Reflowed (issue 24): each line is rewrapped at three columns, one 雪 a row (a wide glyph
  // does not straddle the edge); the rows above the last two are scrollback now.
  EXPECT_THAT(narrow.lines, ElementsAre("\xe9\x9b\xaa  ", "\xe9\x9b\xaa  "));
  EXPECT_EQ(narrow.columns, 3);
  EXPECT_EQ(narrow.cursorX, 2);
  renderer.resize(8, 2);
  EXPECT_THAT(renderer.snapshot().lines,
              ElementsAre("abcdef  ", "\xe9\x9b\xaa\xe9\x9b\xaa\xe9\x9b\xaa     "));
}

TEST(ScreenRenderer, ResizesToFewerRowsThroughScrollbackAndBack) {
  Renderer renderer(4, 4, 10);
  renderer.feed("1\r\n2\r\n3\r\n4");
  renderer.resize(4, 2);
  RenderedScreen small = renderer.snapshot();
  EXPECT_THAT(small.lines, ElementsAre("3   ", "4   "));
  EXPECT_EQ(small.cursorY, 1);
  renderer.resize(4, 5);
  RenderedScreen large = renderer.snapshot();
  // Rows come back from scrollback; the cursor moves down with its row.
  EXPECT_THAT(large.lines, ElementsAre("1   ", "2   ", "3   ", "4   ", "    "));
  EXPECT_EQ(large.cursorY, 3);
}

TEST(ScreenRenderer, DropsBlankRowsBelowTheCursorBeforeScrollingOnAShrink) {
  Renderer renderer(4, 4, 10);
  renderer.feed("1\r\n2");
  renderer.resize(4, 2);
  RenderedScreen frame = renderer.snapshot();
  EXPECT_THAT(frame.lines, ElementsAre("1   ", "2   "));
  EXPECT_EQ(frame.serializedState, "1\r\n2");
}

TEST(ScreenRenderer, KeepsAtMostTheScrollbackLimit) {
  Renderer renderer(3, 2, 3);
  for (int i = 0; i < 10; i++)
    renderer.feed(std::to_string(i) + "\r\n");
  RenderedScreen frame = renderer.snapshot();
  EXPECT_THAT(frame.lines, ElementsAre("9  ", "   "));
  EXPECT_EQ(frame.serializedState, "6\r\n7\r\n8\r\n9\r\n");
}

TEST(ScreenRenderer, KeepsNoScrollbackWhenTheLimitIsZero) {
  Renderer renderer(3, 2, 0);
  renderer.feed("a\r\nb\r\nc");
  EXPECT_EQ(renderer.snapshot().serializedState, "b\r\nc");
}

TEST(ScreenRenderer, ClearsScrollbackOnEraseSavedLines) {
  Renderer renderer(3, 2, 10);
  renderer.feed("a\r\nb\r\nc\r\nd\x1b[3Je\r\nf");
  // ED 3 cleared a and b, the rows scrolled off afterwards remain.
  EXPECT_EQ(renderer.snapshot().serializedState, "c\r\nde\r\nf");
}

TEST(ScreenRenderer, RendersTheSameScreenWhateverTheChunking) {
  std::string stream =
      "\x1b[1;32mgreen\x1b[0m e\xcc\x81t\xc3\xa9 \xe9\x9b\xaa\xf0\x9f\x98\x80\r\n"
      "\x1b]0;title\x07\x1b[2;5Hx\x1b[?25l\x1b[3;4r\x1b[?1049h\x1b[Halt\x1b[?1049l"
      "\x1b[r\x1b[10;1H"
      "line\nfeed\r\n\x1b[41m\x1b[K\x1b[0mend\x1b[5D\x1b[2@";
  for (int i = 0; i < 30; i++)
    stream += "row " + std::to_string(i) + "\r\n";
  Renderer whole(20, 6, 8);
  whole.feed(stream);
  RenderedScreen expected = whole.snapshot();
  Renderer byteByByte(20, 6, 8);
  for (char c : stream)
    byteByByte.feed(std::string_view(&c, 1));
  RenderedScreen actual = byteByByte.snapshot();
  EXPECT_EQ(actual.lines, expected.lines);
  EXPECT_EQ(actual.serializedState, expected.serializedState);
  EXPECT_EQ(actual.cursorX, expected.cursorX);
  EXPECT_EQ(actual.cursorY, expected.cursorY);
  for (size_t cut = 1; cut < stream.size(); cut++) {
    Renderer split(20, 6, 8);
    split.feed(std::string_view(stream).substr(0, cut));
    split.feed(std::string_view(stream).substr(cut));
    RenderedScreen frame = split.snapshot();
    ASSERT_EQ(frame.lines, expected.lines) << "cut at " << cut;
    ASSERT_EQ(frame.serializedState, expected.serializedState) << "cut at " << cut;
    ASSERT_EQ(frame.cursorX, expected.cursorX) << "cut at " << cut;
  }
}

TEST(ScreenRenderer, TurnsInvalidUtf8IntoReplacementCharacters) {
  RenderedScreen frame = render(
      "a\xff"
      "b\xed\xa0\x80",
      6, 1);
  for (const std::string& line : frame.lines) {
    for (unsigned char c : line)
      EXPECT_NE(c, 0xff);
  }
  EXPECT_EQ(frame.lines[0].rfind("a\xef\xbf\xbd"
                                 "b",
                                 0),
            0u);
}

TEST(ScreenRenderer, AnswersDeviceAttributesAndStatusReports) {
  Renderer renderer(80, 24, 0);
  renderer.feed("\x1b[c\x1b[>c\x1b[5n\x1b[3;7H\x1b[6n\x1b[?6n");
  std::vector<QueryReply> replies = renderer.takeReplies();
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(replies[0].query, "DA");
  EXPECT_EQ(replies[0].reply, "\x1b[?1;2c");
  EXPECT_EQ(replies[1].query, "DA2");
  EXPECT_EQ(replies[1].reply, "\x1b[>0;100;0c");
  EXPECT_EQ(replies[2].query, "DSR-status");
  EXPECT_EQ(replies[2].reply, "\x1b[0n");
  EXPECT_EQ(replies[3].query, "DSR-cursor");
  EXPECT_EQ(replies[3].reply, "\x1b[3;7R");
  EXPECT_EQ(replies[4].query, "DSR-cursor-dec");
  EXPECT_EQ(replies[4].reply, "\x1b[?3;7R");
  EXPECT_TRUE(renderer.takeReplies().empty());
}

TEST(ScreenRenderer, ReportsTheLastColumnWhileAWrapIsPending) {
  Renderer renderer(10, 2, 0);
  renderer.feed(std::string(10, 'x') + "\x1b[6n");
  std::vector<QueryReply> replies = renderer.takeReplies();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].reply, "\x1b[1;10R");  // like xterm: column 10, not 11
}

TEST(ScreenRenderer, AnswersAQuerySplitAcrossChunks) {
  Renderer renderer(80, 24, 0);
  renderer.feed("ab\x1b[");
  EXPECT_TRUE(renderer.takeReplies().empty());
  renderer.feed("6n");
  std::vector<QueryReply> replies = renderer.takeReplies();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].reply, "\x1b[1;3R");
}

TEST(ScreenRenderer, RejectsSizesBelowOne) {
  EXPECT_THROW(Renderer(0, 24, 0), std::invalid_argument);
  EXPECT_THROW(Renderer(80, 0, 0), std::invalid_argument);
  EXPECT_THROW(Renderer(80, 24, -1), std::invalid_argument);
  Renderer renderer(80, 24, 0);
  EXPECT_THROW(renderer.resize(0, 1), std::invalid_argument);
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenRenderer, ReflowsTheNormalBufferUnderTheAlternateScreen) {
  // xterm.js reflows both buffers on a change of columns, tmux the normal one when the
  // alternate screen is left; ?1049l then puts the cursor back where its text went.
  Renderer renderer(10, 6, 10);
  renderer.feed("abcdefghijkl\r\n12\x1b[?1049hvim");
  renderer.resize(20, 6);
  renderer.feed("\x1b[?1049lX");
  RenderedScreen frame = renderer.snapshot();
  EXPECT_FALSE(frame.alternate);
  EXPECT_EQ(frame.lines[0], pad("abcdefghijkl", 20));
  EXPECT_EQ(frame.lines[1], pad("12X", 20));
  EXPECT_EQ(frame.cursorX, 3);
  EXPECT_EQ(frame.cursorY, 1);
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenRenderer, ADeletedContinuationRowTakesItsJoinAlong) {
  // The autowrap join is kept on the row that continues the line (xterm.js's isWrapped): when
  // DL removes that row, the row above no longer joins the blank row that moved up, and the
  // reflow leaves the cursor's row apart (it went to the end of the joined line before).
  Renderer renderer(13, 7, 10);
  std::string wide;
  for (int i = 0; i < 21; i++)
    wide += "\xe5\xad\x97";
  renderer.feed(wide + "\r\x1b[M");
  renderer.resize(20, 6);
  RenderedScreen frame = renderer.snapshot();
  EXPECT_EQ(frame.cursorX, 0);
  EXPECT_EQ(frame.cursorY, 2);
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenRenderer, BlankCellsWithABackgroundDoNotMakeAReflowedLineWrap) {
  // Rows scrolled in while a background colour is set hold coloured blank cells across the whole
  // width; a narrower reflow measures the line by its text (xterm.js, tmux) and keeps one row.
  Renderer renderer(27, 4, 10);
  renderer.feed("\x1b[48;2;10;20;30m\x1b[4;1Hline\n\nend\x1b[m");
  renderer.resize(26, 5);
  RenderedScreen frame = renderer.snapshot();
  // One row came back from scrollback; each line kept a single row.
  EXPECT_EQ(frame.lines[2], pad("line", 26));
  EXPECT_EQ(frame.lines[4], pad("    end", 26));
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenRenderer, AGrowAddsBlankRowsBelowACursorAboveTheBottomRow) {
  // xterm.js 6.0.0 (scripts/xtermjs-oracle.sh) pulls rows back from scrollback only while the
  // cursor is on the bottom row (the program is then likely to be at the end of its output);
  // otherwise blank rows are added at the bottom and the screen's top stays where it was. tmux 3.3a
  // would show "1" and "2" again.
  Renderer renderer(4, 4, 10);
  renderer.feed("1\r\n2\r\n3\r\n4");
  renderer.resize(4, 2);
  renderer.feed("\x1b[H");
  renderer.resize(4, 5);
  RenderedScreen frame = renderer.snapshot();
  EXPECT_THAT(frame.lines, ElementsAre("3   ", "4   ", "    ", "    ", "    "));
  EXPECT_EQ(frame.cursorY, 0);
  // Back on the bottom row, a grow pulls the rest of the scrollback down.
  renderer.feed("\x1b[5H");
  renderer.resize(4, 7);
  frame = renderer.snapshot();
  EXPECT_THAT(frame.lines, ElementsAre("1   ", "2   ", "3   ", "4   ", "    ", "    ", "    "));
  EXPECT_EQ(frame.cursorY, 6);
}

}  // namespace
}  // namespace rea::helper

namespace rea::helper {
namespace {

TEST(ScreenRenderer, AWideGlyphThatWrapsInInsertModeEmptiesTheCellItDidNotFitIn) {
  // In insert mode the wide glyphs before it pushed "a" into the last column; the third does not
  // fit there and autowrap carries it on. xterm.js 6.0.0 and tmux empty the cell it left.
  RenderedScreen frame = render("abcde\r\x1b[4h\xe5\xad\x97\xe5\xad\x97\xe5\xad\x97", 5, 3);
  EXPECT_EQ(frame.lines[0], "\xe5\xad\x97\xe5\xad\x97   ");  // no "a"
  EXPECT_EQ(frame.lines[1], "\xe5\xad\x97    ");
  EXPECT_EQ(frame.cursorX, 2);
  EXPECT_EQ(frame.cursorY, 1);
}

}  // namespace
}  // namespace rea::helper
