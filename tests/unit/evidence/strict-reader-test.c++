#include "evidence/strict-reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace rea::evidence {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> formatted(StrictReader& reader) {
  std::vector<std::string> out;
  for (const auto& issue : reader.issues())
    out.push_back(issue.path + ": " + issue.message);
  return out;
}

TEST(StrictReader, DescribesValuesForMessages) {
  EXPECT_EQ(StrictReader::describe(Json(nullptr)), "null");
  EXPECT_EQ(StrictReader::describe(Json(false)), "false");
  EXPECT_EQ(StrictReader::describe(Json(-3)), "-3");
  EXPECT_EQ(StrictReader::describe(Json::parse("18446744073709551615")), "18446744073709551615");
  EXPECT_EQ(StrictReader::describe(Json(1.5)), "1.5");
  EXPECT_EQ(StrictReader::describe(Json("ab\"c")), "\"ab\\\"c\"");
  EXPECT_EQ(StrictReader::describe(Json(std::string(41, 'x'))), "a string");
  EXPECT_EQ(StrictReader::describe(Json::array()), "an array");
  EXPECT_EQ(StrictReader::describe(Json::object()), "an object");
}

TEST(StrictReader, ReportsEveryUnknownKeyButKeepsReading) {
  StrictReader reader;
  Json value = Json::parse(R"({"a":1,"x":2,"b":3,"y":4})");
  EXPECT_TRUE(reader.object(value, "limits", {"a", "b"}));
  EXPECT_FALSE(reader.object(Json(3), "terminal", {"a"}));
  EXPECT_THAT(formatted(reader), ElementsAre("limits.x: unknown key", "limits.y: unknown key",
                                             "terminal: must be an object, got 3"));
}

TEST(StrictReader, IntegersAcceptIntegralFloatsOnly) {
  StrictReader reader;
  int64_t out = -1;
  EXPECT_TRUE(reader.integer(Json(2.0), "n", 0, 5, out));
  EXPECT_EQ(out, 2);
  EXPECT_FALSE(reader.integer(Json(2.5), "n", 0, 5, out));
  EXPECT_FALSE(reader.integer(Json("2"), "n", 0, 5, out));
  EXPECT_FALSE(reader.integer(Json(6), "n", 0, 5, out));
  EXPECT_EQ(out, 2);  // unchanged by failures
  EXPECT_TRUE(reader.integer(Json(9007199254740991), "t", 0, StrictReader::MAX_SAFE_INTEGER, out));
  EXPECT_FALSE(reader.integer(Json(-1), "t", 0, StrictReader::MAX_SAFE_INTEGER, out));
  EXPECT_THAT(formatted(reader), ElementsAre("n: must be an integer from 0 to 5, got 2.5",
                                             "n: must be an integer from 0 to 5, got \"2\"",
                                             "n: must be an integer from 0 to 5, got 6",
                                             "t: must be an integer of at least 0, got -1"));
}

TEST(StrictReader, ArraysReadEveryElementEvenWhenTooLong) {
  StrictReader reader;
  std::vector<std::string> out;
  EXPECT_FALSE(reader.strings(Json::parse(R"(["a", 1, "b"])"), "xs", 2, 1, out));
  EXPECT_THAT(out, ElementsAre("a", "b"));
  EXPECT_THAT(formatted(reader), ElementsAre("xs: must be an array of at most 2 items, got 3 items",
                                             "xs[1]: must be a string, got 1"));
}

}  // namespace
}  // namespace rea::evidence
