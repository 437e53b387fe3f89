// The Renderer's fast paths must give the frames its general paths give. A plain glyph (narrow,
// one code point, not carried on from a pending wrap) only notes where it went, and the
// pending-wrap bookkeeping is derived from that when something reads it (a frame, a cursor move,
// a mode change, a resize, the next glyph that needs it): a frame after every character or
// sequence makes that happen after every glyph, one frame per segment lets it wait as long as it
// can. The width check skips ASCII many bytes at a time and keeps back a character split across
// chunks: cuts at every offset of long ASCII runs with wider characters between them must not
// change the screen.

#include "helpers/pty/screen-renderer.h"
#include "tests/unit/pty/screen-frame-expect.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace rea::helper {
namespace {

// Text that reaches the right edge often (autowrap on and off), glyphs that take the general
// path (wide, with a combining mark, stand-ins for widths libvterm gets wrong: U+1F972 and
// U+1FAE0), and what moves the cursor or changes the modes the bookkeeping depends on; as the
// pieces (a character or a sequence each) it is made of.
std::vector<std::string> randomPieces(std::mt19937& random, int columns) {
  // clang-format off
  static const char* const PIECES[] = {
      "\r\n", "\r", "\n", "\b", "\t", "\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l", "\x1b[K",
      "\x1b[2J", "\x1b[H", "\x1b[A", "\x1b[2C", "\x1b[3D", "\x1b" "7", "\x1b" "8", "\x1b[1;31m",
      "\x1b[0m", "\x1b[53m", "\x1b[1\"q", "\x1b[0\"q", "\x1b[?1049h", "\x1b[?1049l", "\x1b[2;3r",
      "\x1b[r", "\x1b[S", "\x1b[2@", "\x1b[P", "\xc3\xa9", "\xe9\x9b\xaa", "\xf0\x9f\x98\x80",
      "e\xcc\x81", "\xf0\x9f\xa5\xb2", "\xf0\x9f\xab\xa0"};
  // clang-format on
  constexpr int PIECE_COUNT = sizeof(PIECES) / sizeof(PIECES[0]);
  std::vector<std::string> pieces;
  int length = 10 + static_cast<int>(random() % 60);
  for (int i = 0; i < length; i++) {
    switch (random() % 4) {
      case 0:
      case 1: {
        // Often just enough to reach the edge from the start of a row.
        int n = random() % 2 == 0 ? columns : 1 + static_cast<int>(random() % (2 * columns));
        for (int j = 0; j < n; j++)
          pieces.push_back(std::string(1, static_cast<char>('a' + random() % 26)));
        break;
      }
      case 2:
        pieces.push_back("\x1b[" + std::to_string(1 + random() % 6) + ";" +
                         std::to_string(columns - static_cast<int>(random() % 3)) + "H");
        break;
      default:
        pieces.push_back(PIECES[random() % PIECE_COUNT]);
    }
  }
  return pieces;
}

TEST(ScreenFastPaths, GiveTheFramesOfAFrameAfterEveryPiece) {
  for (unsigned seed = 1; seed <= 400; seed++) {
    std::mt19937 random(seed);
    int columns = 2 + static_cast<int>(random() % 12);
    int rows = 1 + static_cast<int>(random() % 6);
    Renderer late(columns, rows, 5);
    Renderer early(columns, rows, 5);
    for (int segment = 0; segment < 4; segment++) {
      if (segment > 0 && random() % 2 == 0) {
        columns = 2 + static_cast<int>(random() % 12);
        rows = 1 + static_cast<int>(random() % 6);
        late.resize(columns, rows);
        early.resize(columns, rows);
      }
      std::string stream;
      for (const std::string& piece : randomPieces(random, columns)) {
        stream += piece;
        early.feed(piece);
        early.snapshot();
      }
      late.feed(stream);
      expectSameFrame(late.snapshot(), early.snapshot(),
                      "seed " + std::to_string(seed) + " segment " + std::to_string(segment));
      if (HasFailure()) return;
    }
  }
}

TEST(ScreenFastPaths, KeepAWrapPendingFromBeforeAutowrapIsTurnedOff) {
  // The glyph at the edge was written with autowrap on: its wrap stays pending (xterm.js reports
  // the column past the edge) even though autowrap is off by the time anything asks.
  Renderer renderer(4, 2, 0);
  renderer.feed("abcd\x1b[?7l");
  RenderedScreen frame = renderer.snapshot();
  EXPECT_EQ(frame.cursorX, 4);
  EXPECT_EQ(frame.cursorY, 0);
  renderer.feed("\x1b[?7hxy");
  frame = renderer.snapshot();
  EXPECT_EQ(frame.lines, (std::vector<std::string>{"abcd", "xy  "}));
  EXPECT_EQ(frame.cursorX, 2);
  EXPECT_EQ(frame.cursorY, 1);
}

TEST(ScreenFastPaths, SkipAsciiWhereverAChunkIsCut) {
  // Characters of three and four bytes (which the width check looks at and keeps back when
  // split) after ASCII runs of every length modulo 8 and 32, some at the right edge.
  std::string stream;
  for (int i = 0; i < 6; i++) {
    stream += std::string(29 + 7 * i, static_cast<char>('a' + i));
    stream += i % 3 == 0 ? "\xf0\x9f\xa5\xb2" : i % 3 == 1 ? "\xe9\x9b\xaa" : "\xe2\x82\xac\r\n";
  }
  Renderer whole(37, 8, 20);
  whole.feed(stream);
  RenderedScreen expected = whole.snapshot();
  for (size_t cut = 1; cut < stream.size(); cut++) {
    Renderer split(37, 8, 20);
    split.feed(std::string_view(stream).substr(0, cut));
    split.feed(std::string_view(stream).substr(cut));
    expectSameFrame(split.snapshot(), expected, "cut at " + std::to_string(cut));
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace rea::helper
