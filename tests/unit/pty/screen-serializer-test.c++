#include "helpers/pty/screen-serializer.h"

#include "helpers/pty/screen-renderer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace rea::helper {
namespace {

std::string serialize(std::string_view input, int columns = 20, int rows = 4, int scrollback = 10) {
  Renderer renderer(columns, rows, scrollback);
  renderer.feed(input);
  return renderer.snapshot().serializedState;
}

TEST(ScreenSerializer, WritesPlainTextWithoutEscapes) {
  EXPECT_EQ(serialize("hello"), "hello");
  EXPECT_EQ(serialize("a\r\nb"), "a\r\nb");
}

TEST(ScreenSerializer, EmitsTheCompletePenWhenItChangesAndResetsItAtTheRowEnd) {
  EXPECT_EQ(serialize("\x1b[1;31mred\x1b[0m \x1b[4;38;5;208;48;2;1;2;3mx"),
            "\x1b[0;1;31mred\x1b[0m \x1b[0;4;38;5;208;48;2;1;2;3mx\x1b[0m"
            "\x1b[0;4;38;5;208;48;2;1;2;3m");
}

TEST(ScreenSerializer, EncodesEveryAttribute) {
  std::string out;
  Pen pen;
  pen.attrs = ATTR_BOLD | ATTR_ITALIC | ATTR_BLINK | ATTR_REVERSE | ATTR_STRIKE |
              (3u << ATTR_UNDERLINE_SHIFT) | (2u << ATTR_FONT_SHIFT);
  pen.fg = INDEXED_COLOR | 9;
  pen.bg = INDEXED_COLOR | 4;
  appendPen(out, pen);
  EXPECT_EQ(out, "\x1b[0;1;3;4:3;5;7;9;12;91;44m");
  out.clear();
  appendPen(out, Pen());
  EXPECT_EQ(out, "\x1b[0m");
}

TEST(ScreenSerializer, SkipsEmptyCellsWithCursorForwardAndErasesColouredOnes) {
  EXPECT_EQ(serialize("a\x1b[5Gb"), "a\x1b[3Cb");
  // A coloured erase leaves empty cells with a background: ECH with that pen.
  EXPECT_EQ(serialize("a\x1b[44m\x1b[K\x1b[0m\x1b[3Gb"),
            "a\x1b[0;44m\x1b[1X\x1b[1C\x1b[0mb\x1b[0;44m\x1b[17X\x1b[0m");
}

TEST(ScreenSerializer, RestoresTheCursorWithRelativeMoves) {
  EXPECT_EQ(serialize("abc\x1b[3;2H"), "abc\x1b[2B\x1b[2D");
  EXPECT_EQ(serialize("\x1b[2;10H"), "\x1b[1B\x1b[9C");
}

TEST(ScreenSerializer, WritesTheAlternateBufferAfterTheNormalOne) {
  EXPECT_EQ(serialize("main\x1b[?1049h\x1b[2;3Halt"), "main\x1b[?1049h\x1b[H\r\n\x1b[2Calt");
}

TEST(ScreenSerializer, WritesNonDefaultModesAndPlacesTheCursorAbsolutelyAfterARegion) {
  EXPECT_EQ(serialize("x\x1b[?25l\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[4h\x1b="),
            "x\x1b[?25l\x1b[?1002h\x1b[?1006h\x1b[?2004h\x1b[4h\x1b=");
  EXPECT_EQ(serialize("x\x1b[2;3r\x1b[4;5H"), "x\x1b[2;3r\x1b[4;5H");
  EXPECT_EQ(serialize("x\x1b[2;3r\x1b[?6h\x1b[2;5H"), "x\x1b[2;3r\x1b[?6h\x1b[2;5H");
}

TEST(ScreenSerializer, WritesEveryVisibleRowWhenThereIsScrollback) {
  EXPECT_EQ(serialize("1\r\n2\r\n3\x1b[H", 4, 2, 5), "1\r\n2\r\n3\x1b[1A\x1b[1D");
}

TEST(ScreenSerializer, MarksProtectedCells) {
  EXPECT_EQ(serialize("a\x1b[1\"qb\x1b[0\"qc"), "a\x1b[1\"qb\x1b[0\"qc");
}

// Random streams of text, controls, cursor moves, erases, scrolls, modes, resizes and both
// buffers, for the round trip below.
std::string randomStream(std::mt19937& random, int columns, int rows) {
  // clang-format off
  static const char* const PIECES[] = {
      "\r\n", "\n", "\r", "\b", "\t", "\x1b[K", "\x1b[1K", "\x1b[2K", "\x1b[J", "\x1b[1J",
      "\x1b[2J", "\x1b[3J", "\x1b[2X", "\x1b[2@", "\x1b[P", "\x1b[L", "\x1b[M", "\x1b[S", "\x1b[T",
      "\x1bM", "\x1b[r", "\x1b[?1049h", "\x1b[?1049l", "\x1b[?1047h", "\x1b[?1047l", "\x1b" "7",
      "\x1b" "8", "\x1b[4h", "\x1b[4l", "\x1b[?7l", "\x1b[?7h", "\x1b[?25l", "\x1b[?2004h",
      "\x1b[?1000h", "\x1b[1;31m", "\x1b[0m", "\x1b[7;44m", "\x1b[38;2;9;8;7m", "\x1b[3;21;9m",
      "\x1b[11m", "\x1b[1\"q", "\x1b[0\"q", "\x1b[?K", "\xe9\x9b\xaa", "\xf0\x9f\x98\x80",
      "e\xcc\x81", "\x1b(0lqk\x1b(B", "\x1b[?6h", "\x1b[?6l", "\x1b=", "\x1b>", "\x1b[20h",
      "\x1b[20l", "\x1b[?69h", "\x1b[?69l", "\x1b[2;4s"};
  // clang-format on
  constexpr int PIECE_COUNT = sizeof(PIECES) / sizeof(PIECES[0]);
  std::string stream;
  int length = 10 + static_cast<int>(random() % 120);
  for (int i = 0; i < length; i++) {
    switch (random() % 6) {
      case 0:
      case 1: {
        int n = 1 + static_cast<int>(random() % 12);
        for (int j = 0; j < n; j++)
          stream.push_back(static_cast<char>('a' + random() % 26));
        break;
      }
      case 2:
        stream += "\x1b[" + std::to_string(1 + random() % (rows + 1)) + ";" +
                  std::to_string(1 + random() % (columns + 1)) + "H";
        break;
      case 3: {
        int top = 1 + static_cast<int>(random() % rows);
        stream += "\x1b[" + std::to_string(top) + ";" + std::to_string(top + random() % rows) + "r";
        break;
      }
      default:
        stream += PIECES[random() % PIECE_COUNT];
    }
  }
  return stream;
}

TEST(ScreenSerializer, RoundTripsThroughAFreshRenderer) {
  for (unsigned seed = 1; seed <= 2000; seed++) {
    std::mt19937 random(seed);
    // At least two columns: on one, wide glyphs cannot be put back in place (see the header).
    int columns = 2 + static_cast<int>(random() % 19);
    int rows = 1 + static_cast<int>(random() % 8);
    int scrollback = static_cast<int>(random() % 5);
    Renderer original(columns, rows, scrollback);
    std::string stream = randomStream(random, columns, rows);
    original.feed(stream);
    if (random() % 3 == 0) {
      columns = 2 + static_cast<int>(random() % 19);
      rows = 1 + static_cast<int>(random() % 8);
      original.resize(columns, rows);
      original.feed(randomStream(random, columns, rows));
    }
    RenderedScreen expected = original.snapshot();

    Renderer copy(columns, rows, scrollback);
    copy.feed(expected.serializedState);
    RenderedScreen actual = copy.snapshot();
    ASSERT_EQ(actual.lines, expected.lines) << "seed " << seed;
    if ((expected.cursorX == columns && actual.cursorX >= columns - 2) ||
        (actual.cursorX == columns && expected.cursorX >= columns - 2)) {
      // A wrap pending in origin mode, or over a cell erased since, is not reproduced
      // (screen-serializer.h), and a cursor move that lands where the cursor already is does
      // not reach the Renderer's tracking of a pending wrap (libvterm reports no move).
      continue;
    }
    ASSERT_EQ(actual.cursorX, expected.cursorX)
        << "seed " << seed << " "
        << ::testing::PrintToString(expected.serializedState.substr(
               expected.serializedState.size() -
               std::min<size_t>(expected.serializedState.size(), 150)));
    ASSERT_EQ(actual.cursorY, expected.cursorY) << "seed " << seed;
    ASSERT_EQ(actual.alternate, expected.alternate) << "seed " << seed;
    // The copy holds the same state, so it serializes to the same bytes.
    ASSERT_EQ(actual.serializedState, expected.serializedState) << "seed " << seed;
  }
}

TEST(ScreenSerializer, RefusesToAssembleAStateLongerThanTheLimit) {
  Renderer renderer(10, 2, 100);
  for (int i = 0; i < 50; i++)
    renderer.feed("line " + std::to_string(i) + "\r\n");
  std::string full = renderer.snapshot().serializedState;
  RenderBudget roomy(10, full.size() + 2 * 10);
  EXPECT_TRUE(renderer.capture(roomy).has_value());
  RenderBudget tight(10, full.size() + 2 * 10 - 1);
  EXPECT_FALSE(renderer.capture(tight).has_value());
  EXPECT_TRUE(tight.truncated());
}

}  // namespace
}  // namespace rea::helper
