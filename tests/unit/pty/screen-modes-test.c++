#include "helpers/pty/screen-modes.h"

#include <gtest/gtest.h>

#include <string>

namespace rea::helper {
namespace {

class Modes final : private ControlSink {
 public:
  TerminalModes modes{80, 24};

  Modes& feed(const std::string& bytes) {
    scanner.scan(bytes, *this);
    return *this;
  }
  std::string encoded() const {
    std::string out;
    modes.appendRegion(out);
    modes.appendOtherModes(out);
    return out;
  }

 private:
  ControlScanner scanner;
  void onSequence(const ControlSequence& sequence, size_t) override { modes.apply(sequence); }
};

TEST(ScreenModes, EncodesNothingForTheDefaults) {
  Modes modes;
  EXPECT_EQ(modes.encoded(), "");
  EXPECT_FALSE(modes.modes.usesAbsoluteCursor());
  modes.feed("\x1b[?7h\x1b[?25h\x1b[?12h\x1b[4l\x1b[r");
  EXPECT_EQ(modes.encoded(), "");
}

TEST(ScreenModes, EncodesChangedModesInAFixedOrder) {
  Modes modes;
  modes.feed(
      "\x1b[?2004h\x1b[4h\x1b[?1;5h\x1b[?7l\x1b[?12l\x1b[?1004h\x1b[?1015h\x1b[?1003h"
      "\x1b=\x1b[20h\x1b[?66h");
  EXPECT_EQ(modes.encoded(),
            "\x1b[?1h\x1b[?5h\x1b[?7l\x1b[?12l\x1b[?66h\x1b[?1003h\x1b[?1015h\x1b[?1004h"
            "\x1b[?2004h\x1b[4h\x1b[20h\x1b=");
}

TEST(ScreenModes, TurnsMouseTrackingOffWhenAnyMouseModeIsReset) {
  Modes modes;
  modes.feed("\x1b[?1000h\x1b[?1002h");
  EXPECT_EQ(modes.encoded(), "\x1b[?1002h");
  modes.feed("\x1b[?1000l");
  EXPECT_EQ(modes.encoded(), "");
}

TEST(ScreenModes, TracksTheRegionAndMarginsAndNormalisesThem) {
  Modes modes;
  modes.feed("\x1b[5;10r");
  EXPECT_EQ(modes.encoded(), "\x1b[5;10r");
  EXPECT_TRUE(modes.modes.usesAbsoluteCursor());
  modes.feed("\x1b[1;24r");  // the whole screen is the default
  EXPECT_EQ(modes.encoded(), "");
  modes.feed("\x1b[9;3r");  // empty: the default, as libvterm has it
  EXPECT_EQ(modes.encoded(), "");
  modes.feed("\x1b[?69h\x1b[3;40s\x1b[2;30r");  // the bottom is clamped to the screen
  EXPECT_EQ(modes.encoded(), "\x1b[?69h\x1b[3;40s\x1b[2;24r");
}

TEST(ScreenModes, ClampsTheRegionOnAResize) {
  Modes modes;
  modes.feed("\x1b[5;20r");
  modes.modes.resize(80, 10);
  EXPECT_EQ(modes.encoded(), "\x1b[5;10r");
  modes.modes.resize(80, 4);  // the region's top row is gone: back to the default
  EXPECT_EQ(modes.encoded(), "");
}

TEST(ScreenModes, ResetsEverythingOnRisAndSoftReset) {
  Modes modes;
  modes.feed("\x1b[?25l\x1b[3;4r\x1b[1\"q\x1b=\x1b[?1000h");
  EXPECT_NE(modes.encoded(), "");
  modes.feed(
      "\x1b"
      "c");
  EXPECT_EQ(modes.encoded(), "");
  modes.feed("\x1b[?25l\x1b[3;4r\x1b[!p");
  EXPECT_EQ(modes.encoded(), "");
}

TEST(ScreenModes, TracksTheProtectedPen) {
  Modes modes;
  modes.feed("\x1b[1\"q");
  EXPECT_EQ(modes.encoded(), "\x1b[1\"q");
  modes.feed("\x1b[2\"q");
  EXPECT_EQ(modes.encoded(), "");
}

}  // namespace
}  // namespace rea::helper
