#include "evidence/timestamp.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

TEST(Timestamp, ParsesTheMillisecondFormOfToIsoString) {
  EXPECT_EQ(parseIsoTimestamp("1970-01-01T00:00:00.000Z"), 0);
  EXPECT_EQ(parseIsoTimestamp("2026-07-14T09:30:00.125Z"), 1784021400125);
  EXPECT_EQ(parseIsoTimestamp("1969-12-31T23:59:59.999Z"), -1);
}

TEST(Timestamp, AcceptsLeapDaysOnlyInLeapYears) {
  EXPECT_TRUE(parseIsoTimestamp("2024-02-29T12:00:00Z"));
  EXPECT_TRUE(parseIsoTimestamp("2000-02-29T12:00:00Z"));
  EXPECT_TRUE(parseIsoTimestamp("0000-02-29T00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2023-02-29T12:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("1900-02-29T12:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-02-30T12:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-04-31T12:00:00Z"));
  EXPECT_TRUE(parseIsoTimestamp("2024-12-31T23:59:59Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-13-01T00:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-00-10T00:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-01-00T00:00:00Z"));
  EXPECT_EQ(*parseIsoTimestamp("2024-03-01T00:00Z") - *parseIsoTimestamp("2024-02-28T00:00Z"),
            2 * 86'400'000);
}

TEST(Timestamp, RejectsOffsetsAndOtherSpellings) {
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:00:00+00:00"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:00:00-05:00"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:00:00"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:00:00z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01t10:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01 10:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01"));
  EXPECT_FALSE(parseIsoTimestamp("24-05-01T10:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("+002024-05-01T10:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T24:00:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:60:00Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:00:60Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:00:00.Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:00.5Z"));
  EXPECT_FALSE(parseIsoTimestamp("2024-05-01T10:00:00.000Z "));
  EXPECT_FALSE(parseIsoTimestamp(""));
}

TEST(Timestamp, AcceptsOptionalSecondsAndFractionsOfAnyLength) {
  EXPECT_EQ(parseIsoTimestamp("2024-05-01T10:00Z"), parseIsoTimestamp("2024-05-01T10:00:00.000Z"));
  EXPECT_EQ(parseIsoTimestamp("2024-05-01T10:00:07Z"),
            *parseIsoTimestamp("2024-05-01T10:00Z") + 7000);
  int64_t base = *parseIsoTimestamp("2024-05-01T10:00:00Z");
  EXPECT_EQ(parseIsoTimestamp("2024-05-01T10:00:00.5Z"), base + 500);
  EXPECT_EQ(parseIsoTimestamp("2024-05-01T10:00:00.25Z"), base + 250);
  EXPECT_EQ(parseIsoTimestamp("2024-05-01T10:00:00.123Z"), base + 123);
  // Beyond milliseconds the digits are read but truncated, like Date.parse.
  EXPECT_EQ(parseIsoTimestamp("2024-05-01T10:00:00.1239Z"), base + 123);
  EXPECT_EQ(parseIsoTimestamp("2024-05-01T10:00:00.999999999999Z"), base + 999);
}

TEST(Timestamp, FormatsLikeToIsoString) {
  EXPECT_EQ(formatIsoTimestamp(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(formatIsoTimestamp(1784021400125), "2026-07-14T09:30:00.125Z");
  EXPECT_EQ(formatIsoTimestamp(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(formatIsoTimestamp(951782400000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(formatIsoTimestamp(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_THROW(formatIsoTimestamp(253402300800000), std::out_of_range);
}

TEST(Timestamp, FormattedTimesParseBackToTheSameMilliseconds) {
  for (int64_t ms : {int64_t(0), int64_t(1), int64_t(-62167219200000), int64_t(1709164800000),
                     int64_t(4102444800123), int64_t(-2208988800001)}) {
    EXPECT_EQ(parseIsoTimestamp(formatIsoTimestamp(ms)), ms) << ms;
  }
}

}  // namespace
}  // namespace rea::evidence
