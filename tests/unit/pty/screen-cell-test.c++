#include "helpers/pty/screen-cell.h"

#include "helpers/pty/screen-renderer.h"

#include <gtest/gtest.h>

#include <string>

namespace rea::helper {
namespace {

// The row as text: '.' empty, '<' wide glyph, '>' its spacer, other glyphs as themselves.
std::string show(const Row& row) {
  std::string text;
  for (const Cell& cell : row.cells) {
    if (cell.isEmpty()) {
      text.push_back('.');
    } else if (cell.isSpacer()) {
      text.push_back('>');
    } else if (cell.isWide()) {
      text.push_back('<');
    } else {
      text.push_back(static_cast<char>(cell.ch));
    }
  }
  return text;
}

Row row(const std::string& text, int columns = 10) {
  Row result;
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '<') {
      result.putGlyph(i, 2, 0x96ea, Pen(), false, columns);
    } else if (text[i] != '>' && text[i] != '.') {
      result.putGlyph(i, 1, text[i], Pen(), false, columns);
    }
  }
  return result;
}

TEST(ScreenCell, EmptiesTheOtherHalfOfAnOverwrittenWideGlyph) {
  Row left = row("<>ab");
  left.putGlyph(0, 1, 'x', Pen(), false, 10);
  EXPECT_EQ(show(left), "x.ab");
  Row right = row("<>ab");
  right.putGlyph(1, 1, 'x', Pen(), false, 10);
  EXPECT_EQ(show(right), ".xab");
  Row straddle = row("a<><>");
  straddle.putGlyph(2, 2, 0x4e2d, Pen(), false, 10);
  EXPECT_EQ(show(straddle), "a.<>.");
}

TEST(ScreenCell, EmptiesTheOtherHalfOfAPartlyErasedWideGlyph) {
  Row start = row("a<>b");
  start.erase(2, 3, Pen(), false);
  EXPECT_EQ(show(start), "a..b");
  Row end = row("a<>b");
  end.erase(0, 2, Pen(), false);
  EXPECT_EQ(show(end), "...b");
}

TEST(ScreenCell, DropsTheTailOnAnEraseToTheEndWithTheDefaultPen) {
  Row text = row("abcdef");
  text.erase(2, 10, Pen(), false);
  EXPECT_EQ(show(text), "ab");
  Pen coloured;
  coloured.bg = INDEXED_COLOR | 4;
  text.erase(1, 4, coloured, false);
  EXPECT_EQ(show(text), "a...");
  EXPECT_EQ(text.cells[3].pen.bg, INDEXED_COLOR | 4);
}

TEST(ScreenCell, KeepsProtectedCellsInASelectiveErase) {
  Row text;
  text.putGlyph(0, 1, 'a', Pen(), true, 10);
  text.putGlyph(1, 1, 'b', Pen(), false, 10);
  text.putGlyph(2, 2, 0x96ea, Pen(), true, 10);
  text.erase(0, 10, Pen(), true);
  EXPECT_EQ(show(text), "a.<>");
}

TEST(ScreenCell, CopiesOverlappingCellsLikeMemmoveAndMendsTheEdges) {
  Row right = row("ab<>cd");
  right.copyFrom(right, 0, 1, 3);  // shift "ab<" right by one: the '<' loses its '>'
  EXPECT_EQ(show(right), "aab.cd");
  Row left = row("ab<>cd");
  // The copied '>' lands in column 0 with no '<' before it, and 'd' overwrites the '<' of the
  // '>' left in column 3: both orphans are emptied.
  left.copyFrom(left, 3, 0, 3);
  EXPECT_EQ(show(left), ".cd.cd");
}

TEST(ScreenCell, CutsAWideGlyphInHalfOnTruncation) {
  Row text = row("ab<>");
  text.truncate(3);
  EXPECT_EQ(show(text), "ab.");
}

TEST(ScreenCell, EncodesUtf8AndReplacesWhatIsNoCodePoint) {
  std::string out;
  appendUtf8(out, 'a');
  appendUtf8(out, 0xe9);
  appendUtf8(out, 0x96ea);
  appendUtf8(out, 0x1f600);
  appendUtf8(out, 0xd800);
  appendUtf8(out, 0x110000);
  EXPECT_EQ(out, "a\xc3\xa9\xe9\x9b\xaa\xf0\x9f\x98\x80\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(ScreenCell, SharesOneEntryPerDistinctCluster) {
  ClusterTable table;
  uint32_t first[] = {'e', 0x301};
  uint32_t second[] = {'e', 0x301};
  uint32_t other[] = {'a', 0x308};
  uint32_t a = table.intern(first, 2);
  EXPECT_EQ(table.intern(second, 2), a);
  EXPECT_NE(table.intern(other, 2), a);
  EXPECT_EQ(table.get(a), std::u32string(U"e\u0301"));
  EXPECT_EQ(cellUtf16Length(a, table), 2u);
}

TEST(ScreenCell, KeepsClustersRightAcrossCompactions) {
  // Thousands of distinct clusters scroll through a small screen: the table compacts, and the
  // clusters still on screen keep their text.
  Renderer renderer(4, 2, 1);
  std::string last;
  for (uint32_t i = 0; i < 6000; i++) {
    std::string glyph = "x";
    appendUtf8(glyph, 0x300 + i % 100);
    appendUtf8(glyph, 0x300 + i / 100);
    renderer.feed(glyph + "\r\n");
    last = glyph;
  }
  RenderedScreen frame = renderer.snapshot();
  EXPECT_EQ(frame.lines[0], last + "   ");
  EXPECT_EQ(frame.lines[1], "    ");
}

}  // namespace
}  // namespace rea::helper
