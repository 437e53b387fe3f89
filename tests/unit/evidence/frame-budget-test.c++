// Frame budgets spent by bytes, not by reads (SPEC A15).

#include "evidence/frame-budget.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

using Raw = RawFrameBudget::Admission;

TEST(FrameBudget, RawReadsPastTheFrameLimitJoinTheLastFrame) {
  RawFrameBudget budget(2, 100);
  EXPECT_EQ(budget.admit(10), Raw::APPEND);
  EXPECT_EQ(budget.admit(10), Raw::APPEND);
  EXPECT_EQ(budget.admit(10), Raw::COALESCE);
  EXPECT_EQ(budget.admit(10), Raw::COALESCE);
  EXPECT_EQ(budget.frames(), 2u);
  EXPECT_EQ(budget.bytes(), 40u);
  EXPECT_FALSE(budget.truncated());
}

TEST(FrameBudget, RawTruncationDependsOnlyOnBytes) {
  // The same 100 bytes in 1 read or in 100 reads: same verdict under a 100-byte limit...
  RawFrameBudget one(3, 100), many(3, 100);
  EXPECT_NE(one.admit(100), Raw::DROP);
  for (int i = 0; i < 100; ++i)
    EXPECT_NE(many.admit(1), Raw::DROP);
  EXPECT_FALSE(one.truncated());
  EXPECT_FALSE(many.truncated());
  // ...and one byte more is dropped (a later read that fits is still taken).
  EXPECT_EQ(many.admit(2), Raw::DROP);
  EXPECT_TRUE(many.truncated());
  RawFrameBudget room(3, 100);
  EXPECT_EQ(room.admit(99), Raw::APPEND);
  EXPECT_EQ(room.admit(2), Raw::DROP);
  EXPECT_EQ(room.admit(1), Raw::APPEND);
}

TEST(FrameBudget, ARenderedFrameEvictsAsFewNewestFramesAsItNeeds) {
  RenderedFrameBudget budget(3, 100);
  EXPECT_EQ(budget.admit(30).evict, 0u);
  EXPECT_EQ(budget.admit(30).evict, 0u);
  EXPECT_EQ(budget.admit(30).evict, 0u);
  auto countFull = budget.admit(5);  // the count is reached: replaces the newest
  EXPECT_TRUE(countFull.accepted);
  EXPECT_EQ(countFull.evict, 1u);
  auto bytesFull = budget.admit(70);  // 65 kept: needs 5 and 30 gone
  EXPECT_TRUE(bytesFull.accepted);
  EXPECT_EQ(bytesFull.evict, 2u);
  EXPECT_EQ(budget.frames(), 2u);
  EXPECT_EQ(budget.bytes(), 100u);
  EXPECT_FALSE(budget.truncated());
  EXPECT_FALSE(budget.admit(101).accepted);
  EXPECT_TRUE(budget.truncated());
  EXPECT_EQ(budget.bytes(), 100u);
}

}  // namespace
}  // namespace rea::evidence
