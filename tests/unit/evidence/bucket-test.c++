#include "evidence/bucket.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

TEST(BucketMs, RoundsDownToTheStartOfTheBucket) {
  EXPECT_EQ(bucketMs(0, 10), 0);
  EXPECT_EQ(bucketMs(9, 10), 0);
  EXPECT_EQ(bucketMs(10, 10), 10);
  EXPECT_EQ(bucketMs(1234, 10), 1230);
  EXPECT_EQ(bucketMs(1234, 1), 1234);
  EXPECT_EQ(bucketMs(59999, 60000), 0);
  EXPECT_EQ(bucketMs(120001, 60000), 120000);
}

TEST(BucketMs, ClampsNegativeTimesToZero) {
  EXPECT_EQ(bucketMs(-1, 10), 0);
  EXPECT_EQ(bucketMs(-25, 10), 0);
}

TEST(BucketMs, RejectsANonPositiveBucket) {
  EXPECT_THROW(bucketMs(5, 0), std::invalid_argument);
  EXPECT_THROW(bucketMs(5, -10), std::invalid_argument);
}

}  // namespace
}  // namespace rea::evidence
