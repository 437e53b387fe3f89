#include "evidence/shape-check.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace rea::evidence {
namespace {

TEST(ShapeCheck, ReadsIntegersAsJavaScriptSafeIntegers) {
  EXPECT_EQ(safeInteger(Json::parse("7")), 7);
  EXPECT_EQ(safeInteger(Json::parse("-7")), -7);
  EXPECT_EQ(safeInteger(Json::parse("7.0")), 7);
  EXPECT_EQ(safeInteger(Json::parse("-0.0")), 0);
  EXPECT_EQ(safeInteger(Json::parse("1e3")), 1000);
  EXPECT_EQ(safeInteger(Json::parse("9007199254740991")), MAX_SAFE_INTEGER);
  EXPECT_EQ(safeInteger(Json::parse("-9007199254740991")), -MAX_SAFE_INTEGER);
  EXPECT_FALSE(safeInteger(Json::parse("9007199254740992")));
  EXPECT_FALSE(safeInteger(Json::parse("18446744073709551615")));
  EXPECT_FALSE(safeInteger(Json::parse("1.5")));
  EXPECT_FALSE(safeInteger(Json::parse("\"7\"")));
  EXPECT_FALSE(safeInteger(Json::parse("true")));
  EXPECT_FALSE(safeInteger(Json::parse("null")));
}

TEST(ShapeCheck, RecognisesLowercaseSha256Hex) {
  EXPECT_TRUE(isSha256Hex(std::string(64, 'a')));
  EXPECT_TRUE(isSha256Hex("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
  EXPECT_FALSE(isSha256Hex(std::string(64, 'A')));
  EXPECT_FALSE(isSha256Hex(std::string(63, 'a')));
  EXPECT_FALSE(isSha256Hex(std::string(65, 'a')));
  EXPECT_FALSE(isSha256Hex(std::string(63, 'a') + "g"));
}

TEST(ShapeCheck, NamesTheBoundThatWasBroken) {
  std::vector<Issue> issues;
  ShapeCheck check(issues);
  Json in = Json::parse(R"({"a":-1,"b":0,"c":"x","d":70000,"e":1.5,"f":5})");
  EXPECT_EQ(check.integer(in, "obj", "a", 0), 0);
  check.integer(in, "obj", "b", 1);
  check.integer(in, "obj", "c", -MAX_SAFE_INTEGER);
  check.integer(in, "obj", "d", 1, 60000);
  check.nullableInteger(in, "obj", "e", 0);
  EXPECT_EQ(check.integer(in, "obj", "f", 2), 5);
  check.integer(in, "obj", "missing", 0);
  ASSERT_EQ(issues.size(), 6u);
  EXPECT_EQ(formatIssues(issues),
            "obj.a: must be a non-negative integer; obj.b: must be a positive integer; "
            "obj.c: must be an integer; obj.d: must be an integer from 1 to 60000; "
            "obj.e: must be a non-negative integer or null; obj.missing: is required");
}

TEST(ShapeCheck, MeasuresStringsInUtf16CodeUnits) {
  std::vector<Issue> issues;
  ShapeCheck check(issues);
  // Two emoji are four UTF-16 code units (eight UTF-8 bytes).
  Json in = Json{{"s", "\xF0\x9F\x98\x80\xF0\x9F\x98\x80"}, {"empty", ""}};
  EXPECT_EQ(check.string(in, "", "s", 0, 4), in["s"]);
  check.string(in, "", "s", 0, 3);
  check.string(in, "", "empty", 1);
  EXPECT_EQ(formatIssues(issues),
            "s: must be a string of 0 to 3 characters; empty: must be a non-empty string");
}

TEST(ShapeCheck, TellsAbsentOptionalMembersFromWrongOnes) {
  std::vector<Issue> issues;
  ShapeCheck check(issues);
  constexpr std::array<const char*, 2> NAMES = {"exact", "sampled"};
  Json in = Json::parse(R"({"flag":null,"kind":"sampled","bad":"guessed"})");
  EXPECT_FALSE(check.optionalBoolean(in, "", "absent"));
  EXPECT_FALSE(check.optionalChoice(in, "", "absent", NAMES));
  EXPECT_EQ(check.optionalChoice(in, "", "kind", NAMES), 1u);
  EXPECT_TRUE(issues.empty());
  check.optionalBoolean(in, "", "flag");  // null is not absence
  check.optionalChoice(in, "", "bad", NAMES);
  EXPECT_EQ(formatIssues(issues),
            "flag: must be a boolean; bad: must be one of \"exact\", \"sampled\"");
}

TEST(ShapeCheck, ChecksContainersAndLiterals) {
  std::vector<Issue> issues;
  ShapeCheck check(issues);
  Json in = Json::parse(
      R"({"list":{},"object":[],"names":["a",1],"lit":"kept","ts":"2024-02-30T00:00Z"})");
  EXPECT_EQ(check.arrayMember(in, "x", "list"), nullptr);
  EXPECT_EQ(check.objectMember(in, "x", "object"), nullptr);
  EXPECT_EQ(check.strings(in, "x", "names"), std::vector<std::string>{"a"});
  check.literal(in, "x", "lit", "removed");
  check.timestamp(in, "x", "ts");
  EXPECT_EQ(formatIssues(issues),
            "x.list: must be an array; x.object: must be an object; x.names[1]: must be a "
            "string; x.lit: must be \"removed\"; x.ts: must be an ISO-8601 UTC timestamp "
            "(YYYY-MM-DDTHH:MM[:SS[.fraction]]Z)");
  // Reading members of something that is not an object reports nothing more: the parent's own
  // check has said what is wrong.
  issues.clear();
  EXPECT_EQ(check.member(Json::array(), "x", "a"), nullptr);
  EXPECT_TRUE(issues.empty());
}

}  // namespace
}  // namespace rea::evidence
