#include "helpers/pty/screen-scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rea::helper {
namespace {

// Records each sequence as text: "CSI ?1;2h@5" = CSI, leader '?', params 1 and 2, final 'h',
// ending at offset 5; missing parameters print as "_".
class Recorder final : public ControlSink {
 public:
  std::vector<std::string> seen;

  void onSequence(const ControlSequence& sequence, size_t end) override {
    std::string text = sequence.csi ? "CSI " : "ESC ";
    if (sequence.leader != 0) text.push_back(sequence.leader);
    for (int i = 0; i < sequence.paramCount; i++) {
      if (i > 0) text.push_back(';');
      text += sequence.params[i] < 0 ? "_" : std::to_string(sequence.params[i]);
    }
    text.append(sequence.intermediates, sequence.intermediateCount);
    text.push_back(sequence.final);
    seen.push_back(text + "@" + std::to_string(end));
  }
};

std::vector<std::string> scan(const std::string& bytes) {
  ControlScanner scanner;
  Recorder recorder;
  scanner.scan(bytes, recorder);
  return recorder.seen;
}

TEST(ScreenScanner, ReportsCsiAndEscapeSequencesWithTheirEnd) {
  EXPECT_EQ(scan("ab\x1b[?1;2hcd\x1b"
                 "7\x1b[m"),
            (std::vector<std::string>{"CSI ?1;2h@9", "ESC 7@13", "CSI m@16"}));
}

TEST(ScreenScanner, KeepsMissingParametersAndIntermediates) {
  EXPECT_EQ(scan("\x1b[;5H\x1b[1\"q\x1b[!p\x1b(0"),
            (std::vector<std::string>{"CSI _;5H@5", "CSI 1\"q@10", "CSI !p@14", "ESC (0@17"}));
}

TEST(ScreenScanner, FindsSequencesSplitAtEveryByte) {
  std::string stream =
      "x\x1b[?1049h\x1b]0;title\x07y\x1b[38;5;1m\x1b"
      "8";
  std::vector<std::string> whole = scan(stream);
  ControlScanner scanner;
  Recorder recorder;
  for (char c : stream)
    scanner.scan(std::string_view(&c, 1), recorder);
  ASSERT_EQ(recorder.seen.size(), whole.size());
  EXPECT_EQ(recorder.seen[0], "CSI ?1049h@1");  // offsets are within each call's input
}

TEST(ScreenScanner, HidesTheContentOfStrings) {
  EXPECT_EQ(scan("\x1b]0;a[6n\x07\x1bP$q[c\x1b\\\x1b_x[6n\x1b\\\x1b[5n"),
            (std::vector<std::string>{"CSI 5n@29"}));
}

TEST(ScreenScanner, EndsAStringAtAnEscapeLikeLibvterm) {
  // libvterm aborts an OSC or DCS at an ESC that does not form ST and parses what follows.
  EXPECT_EQ(scan("\x1b]0;t\x1b[31mX\x07"), (std::vector<std::string>{"CSI 31m@10"}));
}

TEST(ScreenScanner, CancelsOnCanAndRestartsOnEsc) {
  EXPECT_EQ(scan("\x1b[1\x18;2H\x1b[3\x1b[4n"), (std::vector<std::string>{"CSI 4n@14"}));
}

TEST(ScreenScanner, ExecutesControlsInsideASequenceWithoutEndingIt) {
  EXPECT_EQ(scan("\x1b[1\r;2H"), (std::vector<std::string>{"CSI 1;2H@7"}));
}

TEST(ScreenScanner, TreatsC1BytesAsText) {
  EXPECT_TRUE(scan("\x9b"
                   "6n\xc2\x9b"
                   "5n")
                  .empty());
}

TEST(ScreenScanner, RecognisesSequencesThatRestoreTheSavedCursor) {
  auto check = [](const std::string& bytes) {
    struct Sink final : ControlSink {
      bool restores = false;
      void onSequence(const ControlSequence& sequence, size_t) override {
        restores = restores || restoresSavedCursor(sequence);
      }
    } sink;
    ControlScanner scanner;
    scanner.scan(bytes, sink);
    return sink.restores;
  };
  EXPECT_TRUE(
      check("\x1b"
            "8"));
  EXPECT_TRUE(check("\x1b[u"));
  EXPECT_TRUE(check("\x1b[?1049l"));
  EXPECT_TRUE(check("\x1b[?25;1048l"));
  EXPECT_FALSE(check("\x1b[?1049h"));
  EXPECT_FALSE(check("\x1b#8"));
  EXPECT_FALSE(check("\x1b[8m"));
}

}  // namespace
}  // namespace rea::helper
