#include "helpers/pty/screen-ring.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rea::helper {
namespace {

// Labels each row by the code point in its first cell, so tests can see which row is where.
void label(Row& row, uint32_t value) {
  row.cells.resize(1);
  row.cells[0].ch = value;
}

std::vector<uint32_t> labels(const RowRing& ring) {
  std::vector<uint32_t> result;
  for (size_t i = 0; i < ring.size(); i++) {
    result.push_back(ring[i].cells.empty() ? 0 : ring[i].cells[0].ch);
  }
  return result;
}

TEST(ScreenRing, GrowsUpToItsCapacityThenEvictsTheOldestRow) {
  RowRing ring(3);
  for (uint32_t i = 1; i <= 5; i++)
    label(ring.pushBack(), i);
  EXPECT_EQ(ring.size(), 3u);
  EXPECT_EQ(labels(ring), (std::vector<uint32_t>{3, 4, 5}));
}

TEST(ScreenRing, HandsOutEmptyRowsWhenRecyclingStorage) {
  RowRing ring(2);
  label(ring.pushBack(), 1);
  ring[0].encoded = "cached";
  ring[0].encodedValid = true;
  label(ring.pushBack(), 2);
  Row& recycled = ring.pushBack();
  EXPECT_TRUE(recycled.cells.empty());
  EXPECT_FALSE(recycled.encodedValid);
  EXPECT_TRUE(recycled.encoded.empty());
}

TEST(ScreenRing, PopsFromBothEnds) {
  RowRing ring(5);
  for (uint32_t i = 1; i <= 5; i++)
    label(ring.pushBack(), i);
  ring.popBack();
  ring.popFront(2);
  EXPECT_EQ(labels(ring), (std::vector<uint32_t>{3, 4}));
  // The freed slots are reused before the ring evicts anything.
  for (uint32_t i = 6; i <= 8; i++)
    label(ring.pushBack(), i);
  EXPECT_EQ(labels(ring), (std::vector<uint32_t>{3, 4, 6, 7, 8}));
  label(ring.pushBack(), 9);
  EXPECT_EQ(labels(ring), (std::vector<uint32_t>{4, 6, 7, 8, 9}));
}

TEST(ScreenRing, RotatesLikeStdRotateAcrossTheWrapPoint) {
  RowRing ring(6);
  for (uint32_t i = 1; i <= 9; i++)
    label(ring.pushBack(), i);  // storage wraps around
  ASSERT_EQ(labels(ring), (std::vector<uint32_t>{4, 5, 6, 7, 8, 9}));
  ring.rotate(1, 4, 6);
  EXPECT_EQ(labels(ring), (std::vector<uint32_t>{4, 8, 9, 5, 6, 7}));
  ring.swapRows(0, 5);
  EXPECT_EQ(labels(ring), (std::vector<uint32_t>{7, 8, 9, 5, 6, 4}));
}

TEST(ScreenRing, ChangesCapacityKeepingTheNewestRows) {
  RowRing ring(4);
  for (uint32_t i = 1; i <= 6; i++)
    label(ring.pushBack(), i);
  ring.setCapacity(2);
  EXPECT_EQ(labels(ring), (std::vector<uint32_t>{5, 6}));
  ring.setCapacity(5);
  for (uint32_t i = 7; i <= 10; i++)
    label(ring.pushBack(), i);
  EXPECT_EQ(labels(ring), (std::vector<uint32_t>{6, 7, 8, 9, 10}));
  EXPECT_EQ(ring.capacity(), 5u);
}

}  // namespace
}  // namespace rea::helper
