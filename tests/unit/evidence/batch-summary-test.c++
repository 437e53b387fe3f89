// The summary of `rea compare-batch` (issue 21): verdict, completeness, counts, and the index
// page (evidence/batch-summary.h).

#include "evidence/batch-summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace rea::evidence {
namespace {

const char* const DIMENSIONS[] = {"terminal", "interaction", "exit", "filesystem",
                                  "protocol", "process",     "shim"};

// A comparison object with every dimension `unchanged` but those given.
Json comparison(const std::string& status, const Json& dimensions, const Json& divergence) {
  Json out = {{"status", status}};
  for (const char* dimension : DIMENSIONS) {
    out[dimension] = dimensions.value(dimension, std::string("unchanged"));
  }
  out["first_divergence"] = divergence;
  out["limitations"] = Json::array();
  return out;
}

const Json NONE = {{"status", "none"}};

Json found(const std::string& dimension, int index, const Json& left, const Json& right) {
  return {{"status", "found"}, {"dimension", dimension}, {"index", index}, {"left_at_ms", 0},
          {"right_at_ms", 0},  {"left", left},           {"right", right}};
}

TEST(BatchSummary, StatusFollowsTheWorstPairAsAComparisonFollowsItsDimensions) {
  Json unchanged = comparedPair("a", comparison("unchanged", Json::object(), NONE));
  Json unknown = comparedPair("b", comparison("unknown", {{"process", "unknown"}}, NONE));
  Json changed = comparedPair(
      "c", comparison("changed", {{"terminal", "changed"}}, found("terminal", 2, "x", "y")));
  Json truncated = comparedPair("d", comparison("truncated", {{"terminal", "truncated"}}, NONE));
  EXPECT_EQ(summariseBatch("L", "R", {unchanged}, {}, {})["status"], "unchanged");
  EXPECT_EQ(summariseBatch("L", "R", {unchanged, unknown}, {}, {})["status"], "unknown");
  EXPECT_EQ(summariseBatch("L", "R", {unknown, changed}, {}, {})["status"], "changed");
  EXPECT_EQ(summariseBatch("L", "R", {changed, truncated}, {}, {})["status"], "truncated");
  // Nothing compared proves nothing.
  EXPECT_EQ(summariseBatch("L", "R", {}, {}, {})["status"], "unknown");
}

TEST(BatchSummary, FailedAndOneSidedScenariosMakeItIncompleteButKeepTheVerdict) {
  Json unchanged = comparedPair("a", comparison("unchanged", Json::object(), NONE));
  Json error = {
      {"error", "Process command failed"}, {"category", "invalid_input"}, {"message", "bad"}};
  Json failed = failedPair("b", &error, nullptr);
  Json summary = summariseBatch("L", "R", {unchanged, failed}, {"c"}, {"d", "e"});
  EXPECT_EQ(summary["status"], "unchanged");
  EXPECT_EQ(summary["complete"], false);
  EXPECT_EQ(summary["counts"], (Json{{"pairs", 2},
                                     {"unchanged", 1},
                                     {"changed", 0},
                                     {"unknown", 0},
                                     {"truncated", 0},
                                     {"failed", 1},
                                     {"left_only", 1},
                                     {"right_only", 2}}));
  EXPECT_EQ(summary["pairs"][1], (Json{{"id", "b"}, {"status", "failed"}, {"left_error", error}}));
  EXPECT_EQ(summary["left_only"], Json::array({"c"}));
  EXPECT_TRUE(summariseBatch("L", "R", {unchanged}, {}, {})["complete"].get<bool>());
  Json refused = failedPair("f", nullptr, nullptr, "The contracts differ.");
  EXPECT_EQ(refused,
            (Json{{"id", "f"}, {"status", "failed"}, {"reason", "The contracts differ."}}));
}

TEST(BatchSummary, CountsEachDimensionsStatusesAndListsWhatIsNotUnchanged) {
  Json a = comparedPair("a", comparison("changed", {{"terminal", "changed"}, {"process", "added"}},
                                        found("process", 0, nullptr, "p")));
  Json b = comparedPair("b", comparison("unknown", {{"process", "unknown"}}, NONE));
  Json summary = summariseBatch("L", "R", {a, b}, {}, {});
  EXPECT_EQ(summary["dimensions"]["terminal"], (Json{{"unchanged", 1},
                                                     {"changed", 1},
                                                     {"added", 0},
                                                     {"removed", 0},
                                                     {"unknown", 0},
                                                     {"truncated", 0}}));
  EXPECT_EQ(summary["dimensions"]["process"]["added"], 1);
  EXPECT_EQ(summary["dimensions"]["process"]["unknown"], 1);
  EXPECT_EQ(summary["dimensions"]["shim"]["unchanged"], 2);
  const Json& pair = summary["pairs"][0];
  EXPECT_EQ(pair["dimensions"], Json::array({"terminal", "process"}));
  EXPECT_FALSE(pair.contains("dimension_statuses")) << "counted, then dropped";
  EXPECT_EQ(pair["report"], "pairs/a.html");
  EXPECT_EQ(pair["comparison"], "pairs/a.json");
  EXPECT_EQ(pair["first_divergence"]["dimension"], "process");
}

TEST(BatchSummary, IndexLinksEachPairAndEscapesWhatTheTargetsPrinted) {
  Json hostile =
      comparedPair("x~y", comparison("changed", {{"terminal", "changed"}},
                                     found("terminal", 3, "<script>alert(1)</script>", "a & b")));
  Json error = {{"error", "Process command failed"}, {"category", "c"}, {"message", "<b>no</b>"}};
  Json summary =
      summariseBatch("left<dir>", "R", {hostile, failedPair("z", nullptr, &error)}, {}, {"w"});
  std::string page = renderBatchIndexHtml(summary);
  EXPECT_EQ(page.find("<script>"), std::string::npos) << page;
  EXPECT_EQ(page.find("<b>no</b>"), std::string::npos) << page;
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << page;
  EXPECT_NE(page.find("a &amp; b"), std::string::npos) << page;
  EXPECT_NE(page.find("left&lt;dir&gt;"), std::string::npos) << page;
  EXPECT_NE(page.find("<a href=\"pairs/x~y.html\">x~y</a>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td class=\"divergence\">terminal[3]</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("right: &lt;b&gt;no&lt;/b&gt;"), std::string::npos) << page;
  EXPECT_NE(page.find("<ul id=\"right_only\">\n<li>w</li>"), std::string::npos) << page;
  EXPECT_NE(page.find("(incomplete)"), std::string::npos) << page;

  std::string text = summariseBatchText(summary);
  EXPECT_EQ(text.rfind("rea: batch comparison: changed (incomplete)\n", 0), 0u) << text;
  EXPECT_NE(text.find("  changed: x~y at terminal[3]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  failed: z\n"), std::string::npos) << text;
}

TEST(BatchSummary, LongDivergenceValuesAreShortenedOnACharacterBoundary) {
  std::string longText(200, 'a');
  longText += "\xc3\xa9";  // é after the cut point region
  std::string euros;
  for (int i = 0; i < 100; ++i)
    euros += "\xe2\x82\xac";  // 3-byte characters
  Json pair = comparedPair(
      "p", comparison("changed", {{"terminal", "changed"}}, found("terminal", 0, longText, euros)));
  std::string page = renderBatchIndexHtml(summariseBatch("L", "R", {pair}, {}, {}));
  EXPECT_NE(page.find(std::string(160, 'a') + "…</code>"), std::string::npos) << page;
  // 160 bytes cut back to 159 (53 whole euro signs), never half a character.
  std::string cut;
  for (int i = 0; i < 53; ++i)
    cut += "\xe2\x82\xac";
  EXPECT_NE(page.find("<code>" + cut + "…</code>"), std::string::npos) << page;
}

}  // namespace
}  // namespace rea::evidence
