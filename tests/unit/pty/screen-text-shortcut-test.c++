// The text shortcut (Renderer::Impl::onGround, screen-plain-text.h) writes runs of printable
// ASCII into the screen without libvterm where libvterm would write them as they are. It must
// give the frames that sending every glyph through libvterm gives, whatever came before the run:
// character sets designated and shifted (also by controls inside sequences and strings), single
// shifts, insert mode, protection, origin mode with regions and margins, double-width rows,
// pending wraps, wide glyphs, combining marks after a run, resizes, and any chunking.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "helpers/pty/screen-plain-text.h"
#include "helpers/pty/screen-renderer.h"
#include "tests/unit/pty/screen-frame-expect.h"
#include "helpers/pty/screen-scanner.h"

namespace rea::helper {
namespace {

std::string randomRun(std::mt19937& random, int columns) {
  // Often long enough to reach or pass the right edge; '#', 'q' and '`' are what the UK and DEC
  // graphics sets map differently.
  static const char LETTERS[] = "abcq#`xyz ABC0123_~";
  int length = random() % 3 == 0 ? columns - 2 + static_cast<int>(random() % 5)
                                 : 1 + static_cast<int>(random() % (2 * columns));
  std::string text;
  for (int i = 0; i < length; i++)
    text.push_back(LETTERS[random() % (sizeof(LETTERS) - 1)]);
  return text;
}

std::string randomShortcutStream(std::mt19937& random, int columns, int rows) {
  // clang-format off
  static const char* const PIECES[] = {
      // character sets, shifts and single shifts
      "\x1b(0", "\x1b(B", "\x1b(A", "\x1b)0", "\x1b)B", "\x1b*0", "\x1b+A", "\x1b(Z", "\x0e",
      "\x0f", "\x1bn", "\x1bo", "\x1bN", "\x1bO", "\x1b" "c", "\x1b[!p", "\x1b[1\x0e;31m",
      "\x1b[0\x0fm", "\x1b]0;ti\x0etle\x07", "\x1b]0;t\x0f\x07", "\x1b(\x0e" "0",
      // insert mode, protection, origin mode, regions and margins
      "\x1b[4h", "\x1b[4l", "\x1b[1;4h", "\x1b[4;1l", "\x1b[4:1h", "\x1b[1\"q", "\x1b[0\"q",
      "\x1b[2\"q", "\x1b[3\"q", "\x1b[?6h", "\x1b[?6l", "\x1b[?1;6h", "\x1b[2;3r", "\x1b[r",
      "\x1b[?69h", "\x1b[?69l", "\x1b[2;5s", "\x1b[?7l", "\x1b[?7h",
      // double-width and double-height rows
      "\x1b#6", "\x1b#3", "\x1b#5",
      // moves, controls, erasures, the alternate screen
      "\r\n", "\r", "\n", "\b", "\t", "\x1b[H", "\x1b[A", "\x1b[2C", "\x1b[3D", "\x1b" "7",
      "\x1b" "8", "\x1b[K", "\x1b[2J", "\x1b[S", "\x1b[2@", "\x1b[P", "\x1b[?1049h",
      "\x1b[?1049l", "\x1b[1;31m", "\x1b[0m", "\x1b[53m", "\x7f",
      // wide glyphs, marks (also right after a run), width stand-ins; sequences cut short by the
      // run after them (a lead byte before a run is held back as if a chunk ended there)
      "\xe9\x9b\xaa", "\xf0\x9f\x98\x80", "\xcc\x81", "e\xcc\x81", "\xf0\x9f\xa5\xb2", "\xc3\xa9",
      "\xc3", "\xe9\x9b"};
  // clang-format on
  constexpr int PIECE_COUNT = sizeof(PIECES) / sizeof(PIECES[0]);
  std::string stream;
  int length = 10 + static_cast<int>(random() % 50);
  for (int i = 0; i < length; i++) {
    switch (random() % 5) {
      case 0:
      case 1:
        stream += randomRun(random, columns);
        break;
      case 2:
        stream += "\x1b[" + std::to_string(1 + random() % rows) + ";" +
                  std::to_string(1 + random() % columns) + "H";
        break;
      default:
        stream += PIECES[random() % PIECE_COUNT];
    }
  }
  return stream;
}

TEST(TextShortcut, GivesTheFramesOfEveryGlyphThroughLibvterm) {
  uint64_t shortcut = 0;
  for (unsigned seed = 1; seed <= 1500; seed++) {
    std::mt19937 random(seed);
    int columns = 6 + static_cast<int>(random() % 30);
    int rows = 2 + static_cast<int>(random() % 6);
    Renderer fast(columns, rows, 4);
    Renderer general(columns, rows, 4, false);
    for (int segment = 0; segment < 3; segment++) {
      if (segment > 0 && random() % 2 == 0) {
        columns = 6 + static_cast<int>(random() % 30);
        rows = 2 + static_cast<int>(random() % 6);
        fast.resize(columns, rows);
        general.resize(columns, rows);
      }
      std::string stream = randomShortcutStream(random, columns, rows);
      for (size_t at = 0; at < stream.size();) {
        size_t size = random() % 4 == 0 ? stream.size() : 1 + random() % 40;
        std::string_view part = std::string_view(stream).substr(at, size);
        at += part.size();
        fast.feed(part);
        general.feed(part);
        expectSameFrame(fast.snapshot(), general.snapshot(),
                        "seed " + std::to_string(seed) + " segment " + std::to_string(segment) +
                            " at " + std::to_string(at));
        if (HasFailure()) return;
      }
    }
    EXPECT_EQ(general.shortcutGlyphs(), 0u);
    shortcut += fast.shortcutGlyphs();
  }
  // The comparison means something only if the shortcut was taken, and often.
  EXPECT_GT(shortcut, 100000u);
}

TEST(TextShortcut, TakesLongRunsAwayFromTheEdgeOnly) {
  Renderer renderer(20, 4, 0);
  renderer.feed("abcdefghijklmnopqrstuvwxyz");  // 18 glyphs land before the last two columns
  EXPECT_EQ(renderer.shortcutGlyphs(), 18u);
  RenderedScreen frame = renderer.snapshot();
  EXPECT_EQ(frame.lines[0], "abcdefghijklmnopqrst");
  EXPECT_EQ(frame.lines[1], "uvwxyz              ");
  renderer.feed("\r\nabcd\r\n");  // too short to pay for the move
  EXPECT_EQ(renderer.shortcutGlyphs(), 18u);
}

TEST(TextShortcut, LeavesTextInAnotherCharacterSetToLibvterm) {
  Renderer renderer(20, 4, 0);
  renderer.feed("\x1b(0qqqqqqqq\x1b(B");
  EXPECT_EQ(renderer.shortcutGlyphs(), 0u);
  EXPECT_EQ(renderer.snapshot().lines[0],
            "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500" + std::string(12, ' '));
  renderer.feed("qqqqqqqq");
  EXPECT_EQ(renderer.shortcutGlyphs(), 7u);
}

TEST(TextShortcut, AgreesOnADoubleWidthRow) {
  // libvterm would wrap a DECDWL row at half the width if it kept the row's line info, which it
  // does only when a setlineinfo callback accepts it (the Renderer has none, so the rows stay
  // single width); the shortcut leaves such a row to libvterm all the same.
  for (const char* before : {"\x1b#6", "\x1b#3", "\x1b#4"}) {
    Renderer fast(20, 4, 0);
    Renderer general(20, 4, 0, false);
    std::string stream = std::string(before) + "abcdefghijklmnopqrstuvwxyz\x1b#5\r\n" + before;
    fast.feed(stream);
    general.feed(stream);
    expectSameFrame(fast.snapshot(), general.snapshot(), before + 1);
  }
}

ControlSequence escSequence(char final, const char* intermediates = "") {
  ControlSequence sequence{};
  sequence.final = final;
  for (; *intermediates != 0; intermediates++)
    sequence.intermediates[sequence.intermediateCount++] = *intermediates;
  return sequence;
}

ControlSequence csiSequence(char final, std::vector<int32_t> params, char leader = 0,
                            const char* intermediates = "") {
  ControlSequence sequence = escSequence(final, intermediates);
  sequence.csi = true;
  sequence.leader = leader;
  for (int32_t param : params)
    sequence.params[sequence.paramCount++] = param;
  return sequence;
}

TEST(PlainText, FollowsTheSetInvokedIntoGl) {
  PlainText plain;
  EXPECT_TRUE(plain.holds());
  plain.onSequence(escSequence('0', ")"));  // G1 is DEC graphics, but G0 is still in GL
  EXPECT_TRUE(plain.holds());
  plain.onShift(0x0e);  // SO: G1
  EXPECT_FALSE(plain.holds());
  plain.onShift(0x0f);  // SI: G0
  EXPECT_TRUE(plain.holds());
  plain.onSequence(escSequence('A', "("));  // UK in G0
  EXPECT_FALSE(plain.holds());
  plain.onSequence(escSequence('B', "("));
  EXPECT_TRUE(plain.holds());
  plain.onSequence(escSequence('n'));  // LS2: G2, still the UTF-8 decoder
  EXPECT_TRUE(plain.holds());
  plain.onSequence(escSequence('0', "*"));
  EXPECT_FALSE(plain.holds());
  plain.onSequence(escSequence('c'));  // RIS
  EXPECT_TRUE(plain.holds());
}

TEST(PlainText, ASingleShiftLastsOneCharacter) {
  PlainText plain;
  plain.onSequence(escSequence('N'));
  EXPECT_FALSE(plain.holds());
  plain.onText();
  EXPECT_TRUE(plain.holds());
}

TEST(PlainText, FollowsTheModesAsLibvtermActsOnThem) {
  PlainText plain;
  plain.onSequence(csiSequence('h', {1, 4}));  // libvterm sets only the first parameter's mode
  EXPECT_TRUE(plain.holds());
  plain.onSequence(csiSequence('h', {4}));
  EXPECT_FALSE(plain.holds());
  plain.onSequence(csiSequence('p', {}, 0, "!"));  // DECSTR: libvterm 0.1 does not act on it
  EXPECT_FALSE(plain.holds());
  plain.onSequence(csiSequence('l', {4}));
  EXPECT_TRUE(plain.holds());
  plain.onSequence(csiSequence('q', {1}, 0, "\""));
  EXPECT_FALSE(plain.holds());
  plain.onSequence(csiSequence('q', {3}, 0, "\""));  // other values leave it
  EXPECT_FALSE(plain.holds());
  plain.onSequence(csiSequence('q', {2}, 0, "\""));
  EXPECT_TRUE(plain.holds());
  plain.onSequence(csiSequence('h', {6}, '?'));
  EXPECT_FALSE(plain.holds());
  plain.onSequence(csiSequence('l', {6}, '?'));
  EXPECT_TRUE(plain.holds());
}

}  // namespace
}  // namespace rea::helper
