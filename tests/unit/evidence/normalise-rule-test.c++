#include "evidence/normalise-rule.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

std::string expand(std::string_view replacement, std::string_view before, std::string_view match,
                   std::string_view after) {
  std::string out;
  Substitution(replacement).expand(before, match, after, out);
  return out;
}

TEST(Substitution, ExpandsOnlyTheFourJavaScriptSequences) {
  EXPECT_EQ(expand("$$|$&|$`|$'", "B", "M", "A"), "$|M|B|A");
  EXPECT_EQ(expand("$1$<n>$0$x$", "B", "M", "A"), "$1$<n>$0$x$");
  EXPECT_EQ(expand("$$$&", "B", "M", "A"), "$M");
  EXPECT_EQ(expand("$$&", "B", "M", "A"), "$&");
  EXPECT_EQ(expand("", "B", "M", "A"), "");
}

TEST(Substitution, SaysWhichContextItNeeds) {
  EXPECT_FALSE(Substitution("$&$$").usesBefore());
  EXPECT_FALSE(Substitution("$&$$").usesAfter());
  EXPECT_TRUE(Substitution("x$`").usesBefore());
  EXPECT_TRUE(Substitution("x$'").usesAfter());
  EXPECT_FALSE(Substitution("$$'").usesAfter());
}

TEST(NormaliseRule, LiteralHoldsTheLongestPossibleStartOfANeedle) {
  auto rule = NormaliseRule::literal("abab", "X");
  std::string out;
  RuleProgress progress = rule->apply("xxabab aba", 0, false, out);
  EXPECT_EQ(out, "xxX ");
  EXPECT_EQ(progress.consumed, 7u);
  EXPECT_FALSE(progress.waitsForEnd);
  EXPECT_EQ(rule->lookback(), 0u);
}

TEST(NormaliseRule, LiteralWithAnAfterReplacementWaitsForTheEnd) {
  auto rule = NormaliseRule::literal("b", "$'");
  std::string out;
  RuleProgress progress = rule->apply("abc", 0, false, out);
  EXPECT_EQ(out, "a");
  EXPECT_EQ(progress.consumed, 1u);
  EXPECT_TRUE(progress.waitsForEnd);
  out.clear();
  progress = rule->apply("abc", 1, true, out);
  EXPECT_EQ(out, "cc");
  EXPECT_EQ(progress.consumed, 3u);
}

TEST(NormaliseRule, LiteralWithABeforeReplacementReadsConsumedInput) {
  auto rule = NormaliseRule::literal("b", "[$`]");
  EXPECT_EQ(rule->lookback(), NormaliseRule::WHOLE_HISTORY);
  std::string out;
  rule->apply("xyab", 2, true, out);
  EXPECT_EQ(out, "a[xya]");
}

TEST(NormaliseRule, EveryPositionWaitsForAWholeCharacter) {
  auto rule = NormaliseRule::everyPosition("|");
  std::string out;
  RuleProgress progress = rule->apply("a\xE9\x9B", 0, false, out);
  EXPECT_EQ(out, "|a");
  EXPECT_EQ(progress.consumed, 1u);
  out.clear();
  rule->apply("a\xE9\x9B\xAA", 1, true, out);
  EXPECT_EQ(out, "|\xE9\x9B\xAA|");
}

TEST(NormaliseRule, DigitTokensTreatAContinuedRunAsNoMatch) {
  auto rule = NormaliseRule::digitTokens({"42"}, false, "<pid>");
  std::string out;
  // "9" was consumed earlier, so the "42" here is the tail of the run "942".
  rule->apply("942 42", 1, true, out);
  EXPECT_EQ(out, "42 <pid>");
}

TEST(NormaliseRule, DigitTokensHoldARunThatCouldStillBeAPort) {
  auto rule = NormaliseRule::digitTokens({}, true, "<port>");
  std::string out;
  RuleProgress progress = rule->apply("at 127.0.0.1:99", 0, false, out);
  EXPECT_EQ(out, "at 127.0.0.1:");
  EXPECT_EQ(progress.consumed, 13u);
  out.clear();
  progress = rule->apply("at 127.0.0.1:99", 13, true, out);
  EXPECT_EQ(out, "<port>");
}

}  // namespace
}  // namespace rea::evidence
