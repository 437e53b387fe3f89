// `<pid>` against numbers in the default comparison (SPEC A15).

#include "evidence/pid-placeholder.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

TEST(PidPlaceholder, MatchesAnyMaximalNumberOnTheOtherSide) {
  EXPECT_TRUE(equalUpToPids("7\n<pid>\n9\n", "7\n8\n9\n"));
  EXPECT_TRUE(equalUpToPids("7\n8\n9\n", "7\n<pid>\n9\n"));
  EXPECT_TRUE(equalUpToPids("x<pid> y", "x123456 y"));
  EXPECT_TRUE(equalUpToPids("<pid>", "<pid>"));
  EXPECT_TRUE(equalUpToPids("<pid><pid>", "12<pid>"));
}

TEST(PidPlaceholder, EverythingElseMustBeEqual) {
  EXPECT_FALSE(equalUpToPids("<pid>", "abc"));
  EXPECT_FALSE(equalUpToPids("<pid>", ""));
  EXPECT_FALSE(equalUpToPids("1<pid>", "12"));      // the number must start where <pid> does
  EXPECT_FALSE(equalUpToPids("<pid>5", "12 5"));    // and the rest must still match
  EXPECT_FALSE(equalUpToPids("7\n8\n", "7\n9\n"));  // numbers still differ from each other
  EXPECT_FALSE(equalUpToPids("<pid>x", "12y"));
}

TEST(PidPlaceholder, AlignmentMapsOffsetsAcrossSubstitutions) {
  PidAlignment alignment = alignUpToPids("a <pid> b X", "a 4242 b Y");
  EXPECT_FALSE(alignment.equal);
  EXPECT_EQ(alignment.left, 10u);
  EXPECT_EQ(alignment.right, 9u);
  ASSERT_EQ(alignment.substitutions.size(), 1u);
  EXPECT_EQ(alignment.leftOffsetOf(0), 0u);
  EXPECT_EQ(alignment.leftOffsetOf(3), 2u);  // inside the number: its placeholder's start
  EXPECT_EQ(alignment.leftOffsetOf(6), 7u);
  EXPECT_EQ(alignment.rightOffsetOf(4), 2u);
  EXPECT_EQ(alignment.rightOffsetOf(10), 9u);
}

}  // namespace
}  // namespace rea::evidence
