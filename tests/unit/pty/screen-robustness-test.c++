// The renderer parses untrusted bytes (whatever the target prints) and must survive all of them:
// random bytes rich in escape-sequence material, with resizes in between, must leave a frame
// that keeps its invariants. (Run this one under valgrind as well: libvterm itself is not
// instrumented by the sanitizer builds, and it has out-of-bounds bugs the Renderer works around.)

#include "helpers/pty/screen-renderer.h"

#include "evidence/utf.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace rea::helper {
namespace {

std::string randomBytes(std::mt19937& random, size_t length) {
  static const char ALPHABET[] =
      "\x1b\x1b\x1b\x1b[[[[]P_?>=!\"$ 0123456789;;:mhlHJKrsuqcn@PLMSTXABCDG#8"
      "\r\n\t\b\x07\x18\x1a\x7f\x9b\xc3\xa9\xe9\x9b\xaa\xcc\x81\xf0\x9f\x98\x80\xff"
      "abcxyz";
  std::string bytes;
  for (size_t i = 0; i < length; i++) {
    if (random() % 8 == 0) {
      bytes.push_back(static_cast<char>(random() % 256));
    } else {
      bytes.push_back(ALPHABET[random() % (sizeof(ALPHABET) - 1)]);
    }
  }
  return bytes;
}

void expectSaneFrame(const RenderedScreen& frame, int columns, int rows) {
  ASSERT_EQ(frame.columns, columns);
  ASSERT_EQ(frame.rows, rows);
  ASSERT_GE(frame.cursorX, 0);
  ASSERT_LE(frame.cursorX, columns);  // columns: a wrap is pending (xterm.js)
  ASSERT_GE(frame.cursorY, 0);
  ASSERT_LT(frame.cursorY, rows);
  ASSERT_EQ(frame.lines.size(), static_cast<size_t>(rows));
  for (const std::string& line : frame.lines) {
    ASSERT_TRUE(evidence::isValidUtf8(line));
    ASSERT_GE(evidence::utf16Length(line), static_cast<size_t>(columns));
  }
  ASSERT_TRUE(evidence::isValidUtf8(frame.serializedState));
}

TEST(ScreenRobustness, SurvivesRandomBytesAndResizesWithSaneFrames) {
  for (unsigned seed = 1; seed <= 600; seed++) {
    std::mt19937 random(seed);
    int columns = 1 + static_cast<int>(random() % 30);
    int rows = 1 + static_cast<int>(random() % 12);
    Renderer renderer(columns, rows, static_cast<int>(random() % 20));
    for (int step = 0; step < 40; step++) {
      if (random() % 6 == 0) {
        columns = 1 + static_cast<int>(random() % 30);
        rows = 1 + static_cast<int>(random() % 12);
        renderer.resize(columns, rows);
      } else {
        renderer.feed(randomBytes(random, 1 + random() % 200));
      }
      for (const QueryReply& reply : renderer.takeReplies()) {
        ASSERT_FALSE(reply.reply.empty());
        ASSERT_NE(reply.query, "other") << reply.reply;
      }
      ASSERT_NO_FATAL_FAILURE(expectSaneFrame(renderer.snapshot(), columns, rows))
          << "seed " << seed << " step " << step;
    }
  }
}

TEST(ScreenRobustness, KeepsTheCursorOnScreenWhenASavedCursorOutlivesAShrink) {
  // libvterm 0.1.4 would restore the saved cursor off the screen and then index its row arrays
  // with it; the Renderer puts it back on the screen.
  Renderer renderer(40, 20, 0);
  renderer.feed(
      "\x1b[18;35H\x1b"
      "7");
  renderer.resize(10, 5);
  renderer.feed(
      "\x1b"
      "8x");
  RenderedScreen frame = renderer.snapshot();
  EXPECT_EQ(frame.cursorY, 4);
  EXPECT_EQ(frame.lines[4], "         x");
  renderer.feed(
      "\x1b"
      "8\x1b[1K\x1b[?1049h\x1b[3;3H\x1b[?1049l");
  EXPECT_EQ(renderer.snapshot().lines[4], "          ");
}

TEST(ScreenRobustness, ResetsAScrollRegionWhoseTopARowShrinkRemoved) {
  // libvterm 0.1.4 keeps the region's top row after a resize removed it, and its next scroll
  // writes out of bounds; the Renderer resets the region as xterm would.
  Renderer renderer(10, 20, 0);
  renderer.feed("\x1b[15;20r\x1b[16;1Habc");
  renderer.resize(10, 5);
  renderer.feed("\r\n1\r\n2\r\n3\r\n4\r\n5\r\n6");
  RenderedScreen frame = renderer.snapshot();
  EXPECT_EQ(frame.lines[4], "6         ");
  EXPECT_EQ(frame.serializedState.find("\x1b[15;"), std::string::npos);
}

TEST(ScreenRobustness, KeepsTheCursorOnTheTopRowWhenAShrinkScrollsItsRowAway) {
  // libvterm's resize rule would move the cursor to row -1 here. The rows below the cursor go
  // first (xterm.js, tmux), so the cursor stays on the top row.
  Renderer renderer(5, 4, 10);
  renderer.feed("\x1b[4;1Hlast\x1b[1;1Hfirst\x1b[1;1H");
  renderer.resize(5, 2);
  RenderedScreen frame = renderer.snapshot();
  EXPECT_EQ(frame.cursorY, 0);
  EXPECT_EQ(frame.lines[0], "first");
  EXPECT_EQ(frame.lines[1], "     ");
}

TEST(ScreenRobustness, CutsACsiWithMoreParametersThanLibvtermHoldsAndKeepsWhatFollows) {
  // libvterm 0.1.4 stores every ';'-separated argument of a CSI without a bound and writes past
  // its 16-entry array (a target printing `ESC [` and megabytes of ';' crashed rea-pty). The
  // Renderer cancels such a sequence at its 16th separator and skips the rest of it, whether
  // it arrives in one piece, in many, or ends with an ESC starting the next sequence.
  std::string separators(100000, ';');
  for (size_t piece : {size_t(0), size_t(1), size_t(7), size_t(4096)}) {
    SCOPED_TRACE(piece);
    Renderer renderer(20, 3, 0);
    std::string input = "a\x1b[" + separators + "1:2:3mb\x1b[" + separators + "\x1b[2Cc" + "\x1b[" +
                        std::string(15, ';') + "Hd";
    if (piece == 0) {
      renderer.feed(input);
    } else {
      for (size_t at = 0; at < input.size(); at += piece)
        renderer.feed(input.substr(at, piece));
    }
    RenderedScreen frame = renderer.snapshot();
    expectSaneFrame(frame, 20, 3);
    // "a", "b" right after it, two columns skipped by the CUF after the cut sequence, "c"; then
    // a CSI H with 16 (empty) parameters still homes the cursor: "d" overwrites "a".
    EXPECT_EQ(frame.lines[0], "db  c               ");
  }
}

}  // namespace
}  // namespace rea::helper
