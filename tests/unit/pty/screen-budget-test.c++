#include "helpers/pty/screen-budget.h"

#include "helpers/pty/screen-renderer.h"

#include <gtest/gtest.h>

namespace rea::helper {
namespace {

TEST(ScreenBudget, PastTheFrameLimitAFrameReplacesTheNewest) {
  // A15: the number of reads (frames) cannot truncate.
  RenderBudget budget(2, 1000);
  EXPECT_TRUE(budget.admit(10));
  EXPECT_TRUE(budget.admit(10));
  EXPECT_TRUE(budget.admit(12));
  EXPECT_FALSE(budget.truncated());
  EXPECT_EQ(budget.frames(), 2u);
  EXPECT_EQ(budget.bytes(), 22u);
}

TEST(ScreenBudget, PastTheBytesAFrameReplacesAsManyNewestFramesAsItNeeds) {
  RenderBudget budget(10, 100);
  EXPECT_TRUE(budget.admit(40));
  EXPECT_TRUE(budget.admit(30));
  EXPECT_TRUE(budget.admit(20));
  EXPECT_TRUE(budget.admit(55));  // replaces 20 and 30
  EXPECT_EQ(budget.frames(), 2u);
  EXPECT_EQ(budget.bytes(), 95u);
  EXPECT_FALSE(budget.truncated());
  EXPECT_FALSE(budget.admit(101));  // only a frame costlier than the whole budget is dropped
  EXPECT_TRUE(budget.truncated());
  EXPECT_EQ(budget.bytes(), 95u);
}

TEST(ScreenBudget, IsExhaustedWhenNoFrameOfTheSizeCanFitAlone) {
  RenderBudget budget(10, 100);
  EXPECT_FALSE(budget.exhausted(10, 10));
  EXPECT_TRUE(budget.admit(99));
  EXPECT_FALSE(budget.exhausted(10, 10));  // it would replace the kept frame
  EXPECT_TRUE(budget.exhausted(10, 11));
  RenderBudget frames(1, 1000);
  EXPECT_TRUE(frames.admit(1));
  EXPECT_FALSE(frames.exhausted(1, 1));
}

TEST(ScreenBudget, CountsTheCostOfEachCapturedFrame) {
  Renderer renderer(10, 2, 5);
  RenderBudget budget(100, 100000);
  renderer.feed("\x1b[31mred\x1b[0m\r\n\xe9\x9b\xaa");
  std::optional<RenderedScreen> frame = renderer.capture(budget);
  ASSERT_TRUE(frame.has_value());
  uint64_t expected = frame->serializedState.size();
  for (const std::string& line : frame->lines)
    expected += line.size();
  EXPECT_EQ(frame->cost(), expected);
  EXPECT_EQ(budget.bytes(), expected);
  EXPECT_EQ(budget.frames(), 1u);
}

TEST(ScreenBudget, StopsEmulatingOnceExhaustedButKeepsAnsweringQueries) {
  Renderer renderer(4, 2, 0);
  RenderBudget budget(100, 7);  // the 4x2 lines alone take 8 bytes: no frame can ever fit
  int captured = 0;
  for (int i = 0; i < 5; i++) {
    renderer.feed("ab");
    if (renderer.capture(budget)) captured++;
  }
  EXPECT_EQ(captured, 0);
  EXPECT_TRUE(budget.truncated());
  EXPECT_FALSE(renderer.emulating());
  RenderedScreen last = renderer.snapshot();

  renderer.feed("\x1b[H\x1b[c\x1b[5n\x1b[6n");
  std::vector<QueryReply> replies = renderer.takeReplies();
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[0].reply, "\x1b[?1;2c");
  EXPECT_EQ(replies[1].reply, "\x1b[0n");
  // The position of the last emulated cursor: the CUP before the query was not emulated.
  EXPECT_EQ(replies[2].reply, "\x1b[" + std::to_string(last.cursorY + 1) + ";" +
                                  std::to_string(last.cursorX + 1) + "R");
  EXPECT_EQ(renderer.snapshot().lines, last.lines);
  EXPECT_FALSE(renderer.capture(budget).has_value());
}

TEST(ScreenBudget, ClampsTheLastCursorToANewSizeAfterStopping) {
  Renderer renderer(10, 5, 0);
  RenderBudget budget(1, 49);  // below the 10x5 lines: emulation stops at the first capture
  renderer.feed("\x1b[5;9H");
  EXPECT_FALSE(renderer.capture(budget).has_value());
  renderer.resize(4, 2);
  renderer.feed("\x1b[6n");
  std::vector<QueryReply> replies = renderer.takeReplies();
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].reply, "\x1b[2;4R");
}

}  // namespace
}  // namespace rea::helper
