// rendererMayActOn() (screen-scanner.h) lets the Renderer skip, by the final byte alone, the
// sequences none of its checks act on. It is a second statement of what those checks look at, so
// it is checked against them here: for every final byte, CSI or ESC, with the leaders,
// intermediates and parameters the checks distinguish, a sequence it says to skip must leave the
// tracked modes unchanged and be neither corrected nor a cursor restore.

#include "helpers/pty/screen-corrections.h"
#include "helpers/pty/screen-modes.h"
#include "helpers/pty/screen-scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace rea::helper {
namespace {

ControlSequence sequenceOf(bool csi, char leader, char intermediate, char final,
                           const std::vector<int>& params) {
  ControlSequence sequence{};
  sequence.csi = csi;
  sequence.leader = leader;
  sequence.final = final;
  sequence.paramCount = int(params.size());
  for (size_t i = 0; i < params.size(); i++)
    sequence.params[i] = params[i];
  sequence.intermediateCount = intermediate != 0 ? 1 : 0;
  sequence.intermediates[0] = intermediate;
  return sequence;
}

std::string modesText(const TerminalModes& modes) {
  std::string text;
  modes.appendRegion(text);
  text += '|';
  modes.appendOtherModes(text);
  return text;
}

TEST(SequenceFilter, ASkippedSequenceIsOneNoCheckActsOn) {
  // A state away from every default, so that a reset or a change of any mode shows.
  TerminalModes changed(20, 10);
  for (auto [leader, final, params] : std::vector<std::tuple<char, char, std::vector<int>>>{
           {'?', 'h', {1, 6, 69, 1000}}, {'?', 'l', {7}}, {0, 'h', {4, 20}}, {0, 'r', {2, 8}}}) {
    changed.apply(sequenceOf(true, leader, 0, final, params));
  }
  changed.apply(sequenceOf(false, 0, 0, '=', {}));
  const std::string before = modesText(changed);
  ASSERT_NE(before, modesText(TerminalModes(20, 10)));

  const std::vector<std::vector<int>> parameterSets = {
      {}, {0}, {1}, {2}, {3}, {4}, {6}, {7}, {20}, {47}, {53}, {55}, {69}, {1047}, {1049}, {2, 5}};
  int skipped = 0;
  for (bool csi : {true, false}) {
    for (char leader : {'\0', '?', '>'}) {
      for (char intermediate : {'\0', '!', '"', ' ', '$'}) {
        for (int final = 0x30; final <= 0x7e; final++) {
          for (const auto& params : parameterSets) {
            if (!csi && (leader != 0 || !params.empty())) continue;
            ControlSequence sequence = sequenceOf(csi, leader, intermediate, char(final), params);
            if (rendererMayActOn(sequence)) continue;
            skipped++;
            std::string what =
                std::string(csi ? "CSI " : "ESC ") + (leader != 0 ? std::string(1, leader) : "") +
                (intermediate != 0 ? std::string(1, intermediate) : "") + char(final) + " with " +
                std::to_string(params.size()) + " parameters";
            EXPECT_FALSE(mayNeedCorrection(sequence)) << what;
            EXPECT_FALSE(restoresSavedCursor(sequence)) << what;
            TerminalModes modes = changed;
            modes.apply(sequence);
            EXPECT_EQ(modesText(modes), before) << what;
          }
        }
      }
    }
  }
  EXPECT_GT(skipped, 1000);  // the filter does skip most sequences (CUP, EL, ...)
}

TEST(SequenceFilter, TheSequencesTheRendererCorrectsOrTracksAreNotSkipped) {
  for (char final : {'h', 'l', 'r', 's', 'u', 'A', 'B', 'E', 'F', 'J', 'm'}) {
    EXPECT_TRUE(rendererMayActOn(sequenceOf(true, 0, 0, final, {}))) << final;
  }
  for (char final : {'c', '=', '>', '8'}) {
    EXPECT_TRUE(rendererMayActOn(sequenceOf(false, 0, 0, final, {}))) << final;
  }
  EXPECT_TRUE(rendererMayActOn(sequenceOf(true, 0, '!', 'p', {})));     // DECSTR
  EXPECT_TRUE(rendererMayActOn(sequenceOf(true, 0, '"', 'q', {1})));    // DECSCA
  EXPECT_FALSE(rendererMayActOn(sequenceOf(true, 0, 0, 'H', {3, 4})));  // CUP
  EXPECT_FALSE(rendererMayActOn(sequenceOf(true, 0, 0, 'K', {})));      // EL
}

}  // namespace
}  // namespace rea::helper
