#include "evidence/report-html.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "evidence/compare.h"
#include "evidence/report-screen.h"
#include "tests/unit/capture-fixture.h"

namespace rea::evidence {
namespace {

using testing::sampleCapture;

const char* const DIMENSIONS[] = {"terminal", "interaction", "exit", "filesystem",
                                  "protocol", "process",     "shim"};

std::string report(const Capture& left, const Capture& right, const Json& comparison) {
  return renderReportHtml({"left.json", "ev_left", left}, {"right.json", "ev_right", right},
                          comparison);
}

std::string report(const Capture& left, const Capture& right, const CompareOptions& options = {}) {
  return report(left, right, compareCaptures(toJson(left), toJson(right), options));
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The text of the element that starts with `<tag ... id="id"` up to its closing tag (elements
// of the report with an id are not nested in their own kind).
std::string elementById(const std::string& page, const std::string& tag, const std::string& id) {
  size_t at = page.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  size_t start = page.rfind("<" + tag, at);
  size_t end = page.find("</" + tag + ">", at);
  if (start == std::string::npos || end == std::string::npos) return "";
  return page.substr(start, end + tag.size() + 3 - start);
}

std::string openingTag(const std::string& page, const std::string& id) {
  size_t at = page.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  size_t start = page.rfind('<', at);
  return page.substr(start, page.find('>', at) + 1 - start);
}

// A capture whose answer line differs from the sample's in the fourth raw frame.
Capture withAnswer(const std::string& answer) {
  Capture capture = sampleCapture();
  capture.frames[3].data = "hello\r\n" + answer + "\r\nready> ";
  return capture;
}

TEST(ReportHtml, EscapesEverythingTakenFromTheCaptures) {
  Capture left = sampleCapture();
  Capture right = withAnswer("<script>alert('x')</script> & \"quoted\"");
  // Without rendered frames the raw fallback shows the text on the screen too.
  left.renderedFrames.clear();
  right.renderedFrames.clear();
  right.limitations.push_back("<img src=x onerror=alert(1)>");
  std::string page =
      renderReportHtml({"<b>left</b>.json", "ev_left", left}, {"right.json", "ev_right", right},
                       compareCaptures(toJson(left), toJson(right)));
  EXPECT_EQ(lower(page).find("<script"), std::string::npos);
  EXPECT_EQ(lower(page).find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>left"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;left&lt;/b&gt;.json"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;"),
            std::string::npos);
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

TEST(ReportHtml, EscapeHtmlReplacesMarkupCharactersAndInvalidUtf8) {
  EXPECT_EQ(escapeHtml("a<b>&\"'c"), "a&lt;b&gt;&amp;&quot;&#39;c");
  EXPECT_EQ(escapeHtml("\xff"), "\xef\xbf\xbd");
  EXPECT_EQ(escapeHtml("雪"), "雪");
}

TEST(ReportHtml, IsSelfContained) {
  std::string page = report(sampleCapture(), withAnswer("Bye"));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<style>"), std::string::npos);
  for (const char* outside : {"http:", "https:", "<script", "<link", " src=", "url(", "@import"}) {
    EXPECT_EQ(lower(page).find(outside), std::string::npos) << outside;
  }
}

TEST(ReportHtml, RendersEachStatusWordWithItsOwnClass) {
  Capture capture = sampleCapture();
  Json comparison = compareCaptures(toJson(capture), toJson(capture));
  const char* statuses[] = {"unchanged", "added",   "removed",      "changed",
                            "truncated", "unknown", "contradiction"};
  for (size_t i = 0; i < 7; ++i)
    comparison[DIMENSIONS[i]] = statuses[i];
  comparison["status"] = "truncated";
  std::string page = report(capture, capture, comparison);
  for (size_t i = 0; i < 7; ++i) {
    std::string row = openingTag(page, std::string("dimension-") + DIMENSIONS[i]);
    EXPECT_NE(row.find(std::string("class=\"dimension status-") + statuses[i]), std::string::npos)
        << row;
    EXPECT_NE(row.find(std::string("data-status=\"") + statuses[i] + "\""), std::string::npos)
        << row;
  }
  EXPECT_NE(openingTag(page, "overall-status").find("status-truncated"), std::string::npos);

  // A word outside SPEC B §9 gets no class of its own (and is still shown, escaped).
  comparison["exit"] = "\"><b>odd";
  page = report(capture, capture, comparison);
  EXPECT_NE(openingTag(page, "dimension-exit").find("status-other"), std::string::npos);
  EXPECT_NE(page.find("&quot;&gt;&lt;b&gt;odd"), std::string::npos);
}

TEST(ReportHtml, IdenticalCapturesReportNoDivergenceAndEveryDimensionUnchanged) {
  Capture capture = sampleCapture();
  capture.residualUnknowns.clear();  // else the residual makes the divergence `unknown`
  std::string page = report(capture, capture);
  for (const char* dimension : DIMENSIONS) {
    EXPECT_NE(openingTag(page, std::string("dimension-") + dimension).find("status-unchanged"),
              std::string::npos)
        << dimension;
  }
  EXPECT_EQ(page.find("first-divergence\" id=\"dimension-"), std::string::npos);  // no row marked
  std::string section = elementById(page, "section", "first-divergence");
  EXPECT_NE(section.find("divergence-none"), std::string::npos) << section;
  // Both screens are the end of the capture.
  EXPECT_NE(elementById(page, "figure", "screen-left").find("at the end of the capture"),
            std::string::npos);
}

TEST(ReportHtml, HighlightsTheFirstDivergenceInTheTableAndItsOwnSection) {
  Capture left = sampleCapture();
  Capture right = withAnswer("Bye, hello!");
  Json comparison = compareCaptures(toJson(left), toJson(right));
  ASSERT_EQ(comparison["first_divergence"]["dimension"], "terminal") << comparison.dump();
  std::string page = report(left, right, comparison);

  EXPECT_NE(openingTag(page, "dimension-terminal").find("first-divergence"), std::string::npos);
  EXPECT_EQ(openingTag(page, "dimension-exit").find("first-divergence"), std::string::npos);
  std::string section = elementById(page, "section", "first-divergence");
  EXPECT_NE(section.find("divergence-found"), std::string::npos);
  EXPECT_NE(section.find("<strong class=\"divergence-dimension\">terminal</strong>"),
            std::string::npos);
  int64_t index = comparison["first_divergence"]["index"];
  EXPECT_NE(section.find("output stream, byte offset " + std::to_string(index)), std::string::npos)
      << section;
  EXPECT_NE(section.find("120 ms"), std::string::npos);
  // Everything from the first differing byte on is marked, on both sides; controls are visible.
  EXPECT_NE(section.find("<mark class=\"divergence\">Hi, hello!<span class=\"ctl\">\\r</span>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("<mark class=\"divergence\">Bye, hello!"), std::string::npos) << section;
}

TEST(ReportHtml, NamesTheElementOfANonTerminalDivergence) {
  Capture left = sampleCapture();
  Capture right = sampleCapture();
  right.shimEvents[0].arguments = {"--help"};
  std::string page = report(left, right);
  std::string section = elementById(page, "section", "first-divergence");
  EXPECT_NE(section.find("shim record 1, sequence 0"), std::string::npos) << section;
  // Only the part that differs is marked, on each side.
  EXPECT_NE(section.find("&quot;--<mark class=\"divergence\">help</mark>&quot;"), std::string::npos)
      << section;
  EXPECT_EQ(section.find("SPEC"), std::string::npos);
  EXPECT_NE(openingTag(page, "dimension-shim").find("first-divergence"), std::string::npos);
}

TEST(ReportHtml, ShowsTheTerminalScreensWhenTheFirstDivergenceIsElsewhere) {
  Capture left = sampleCapture();
  Capture right = sampleCapture();
  right.shimEvents[0].arguments = {"--help"};
  right.renderedFrames.back().lines[0] = "hi, world";
  Json comparison = compareCaptures(toJson(left), toJson(right));
  ASSERT_EQ(comparison["terminal"], "changed") << comparison.dump();
  ASSERT_NE(comparison["first_divergence"]["dimension"], "terminal") << comparison.dump();
  std::string page = report(left, right, comparison);
  std::string leftScreen = elementById(page, "figure", "terminal-screen-left");
  std::string rightScreen = elementById(page, "figure", "terminal-screen-right");
  EXPECT_NE(rightScreen.find("<span class=\"row differs\">hi, world"), std::string::npos)
      << rightScreen;
  EXPECT_NE(leftScreen.find("<span class=\"row differs\">"), std::string::npos) << leftScreen;
  // Without a terminal difference there is no such section.
  right = sampleCapture();
  right.shimEvents[0].arguments = {"--help"};
  EXPECT_EQ(report(left, right).find("terminal-screens"), std::string::npos);
}

TEST(ReportHtml, ListsEachLimitationOnceAndNoSpecificationSections) {
  Capture left = sampleCapture();
  Capture right = sampleCapture();
  left.limitations = {"The same sentence."};
  right.limitations = {"The same sentence."};
  std::string page = report(left, right);
  std::string section = elementById(page, "section", "limitations");
  size_t first = section.find("The same sentence.");
  ASSERT_NE(first, std::string::npos) << section;
  EXPECT_EQ(section.find("The same sentence.", first + 1), std::string::npos) << section;
  EXPECT_EQ(page.find("SPEC"), std::string::npos);
  EXPECT_EQ(page.find("§"), std::string::npos);
}

TEST(ReportHtml, DrawsADivergentScreenAsATerminalWithItsDifferingRowsMarked) {
  Capture left = sampleCapture();
  Capture right = sampleCapture();
  right.renderedFrames[0].lines[0] = "Starting <app>";
  Json comparison = compareCaptures(toJson(left), toJson(right));
  ASSERT_EQ(comparison["first_divergence"]["left"]["kind"], "screen") << comparison.dump();
  std::string section = elementById(report(left, right, comparison), "section", "first-divergence");
  EXPECT_NE(section.find("screen at moment 0 (interaction)"), std::string::npos) << section;
  EXPECT_NE(section.find("80x24, cursor 0,1, normal buffer"), std::string::npos);
  EXPECT_NE(section.find("<span class=\"row differs\">Starting app</span><span class=\"row\">"),
            std::string::npos);
  EXPECT_NE(section.find("<span class=\"row differs\">Starting &lt;app&gt;</span>"),
            std::string::npos);
}

TEST(ReportHtml, SaysWhenTheFirstDivergenceIsOneOfTiming) {
  Capture left = sampleCapture();
  Capture right = sampleCapture();
  right.shimEvents[0].atMs = 552;  // same content, 500 ms later
  Json comparison = compareCaptures(toJson(left), toJson(right));
  ASSERT_EQ(comparison["first_divergence"]["timing"], true) << comparison.dump();
  std::string page = report(left, right, comparison);
  std::string section = elementById(page, "section", "first-divergence");
  EXPECT_NE(section.find("the contents match, but the times differ by <strong>500 ms</strong> "
                         "(tolerance 50 ms)"),
            std::string::npos)
      << section;
  EXPECT_NE(openingTag(page, "dimension-shim").find("status-changed first-divergence"),
            std::string::npos);
  EXPECT_NE(page.find("<rect class=\"bar beyond\" data-dimension=\"shim\""), std::string::npos);
}

TEST(ReportHtml, ShowsTheLastRenderedFrameAtOrBeforeTheDivergenceOnEachSide) {
  Capture left = sampleCapture();
  Capture right = withAnswer("Bye, hello!");
  right.renderedFrames[1].lines[2] = "Bye, hello!";
  // The divergence is at 120 ms: frame 0 (10 ms) is on screen, not the resize frame (203 ms).
  std::string page = report(left, right);
  std::string leftScreen = elementById(page, "figure", "screen-left");
  EXPECT_NE(openingTag(page, "screen-left").find("data-source=\"rendered\""), std::string::npos);
  EXPECT_NE(leftScreen.find("rendered frame 0 at 10 ms (last rendered frame at or before 120 ms)"),
            std::string::npos)
      << leftScreen;
  EXPECT_NE(leftScreen.find("80x24"), std::string::npos);
  EXPECT_NE(leftScreen.find("Starting app"), std::string::npos);
  EXPECT_EQ(leftScreen.find("ready&gt; hello"), std::string::npos);

  // At the end, the screens hold the resize frames, and the differing row is marked.
  Json comparison = compareCaptures(toJson(left), toJson(right));
  comparison["first_divergence"]["left_at_ms"] = 500;
  comparison["first_divergence"]["right_at_ms"] = nullptr;
  page = report(left, right, comparison);
  std::string rightScreen = elementById(page, "figure", "screen-right");
  EXPECT_NE(rightScreen.find("rendered frame 1 at 203 ms (last rendered frame at the end of the "
                             "capture), 100x40, cursor 7,3, alternate buffer"),
            std::string::npos)
      << rightScreen;
  EXPECT_NE(rightScreen.find("<span class=\"row differs\">Bye, hello!</span>"), std::string::npos);
  EXPECT_NE(rightScreen.find("<span class=\"row\">ready&gt; hello</span>"), std::string::npos);
  EXPECT_NE(elementById(page, "figure", "screen-left").find("at or before 500 ms"),
            std::string::npos);
}

TEST(ReportHtml, FallsBackToTheRawOutputAsPlainTextWithoutRenderedFrames) {
  Capture left = sampleCapture();
  Capture right = withAnswer("\x1b[1mBye\x1b[0m, hello!");
  left.renderedFrames.clear();
  right.renderedFrames.clear();
  std::string page = report(left, right);
  EXPECT_NE(openingTag(page, "screen-right").find("data-source=\"raw\""), std::string::npos);
  std::string rightScreen = elementById(page, "figure", "screen-right");
  EXPECT_NE(rightScreen.find("no rendered frame at or before 120 ms; raw output of 4 frame(s) "
                             "with control sequences stripped, shown as plain text"),
            std::string::npos)
      << rightScreen;
  EXPECT_NE(rightScreen.find(
                "<span class=\"row\">Starting app</span><span class=\"row\">ready&gt; hello</span>"
                "<span class=\"row differs\">Bye, hello!</span>"),
            std::string::npos)
      << rightScreen;
  EXPECT_EQ(rightScreen.find("\x1b"), std::string::npos);
  EXPECT_EQ(rightScreen.find("[1m"), std::string::npos);
}

TEST(ReportHtml, TheRawFallbackKeepsOnlyTheScenarioRowsAndOnlyFramesUpToTheMoment) {
  Capture capture = sampleCapture();
  capture.renderedFrames.clear();
  (*capture.manifest.scenario)["terminal"]["rows"] = 2;
  ReportScreen screen = screenAt(capture, 40);  // frames 0–2
  EXPECT_EQ(screen.source, ReportScreen::Source::RAW);
  EXPECT_EQ(screen.rawFrameCount, 3u);
  EXPECT_EQ(screen.lines, (std::vector<std::string>{"Starting app", "ready> "}));
  screen = screenAt(capture, std::nullopt);
  EXPECT_EQ(screen.rawFrameCount, 4u);
  EXPECT_EQ(screen.rawLinesDropped, 2u);
  EXPECT_EQ(screen.lines, (std::vector<std::string>{"Hi, hello!", "ready> "}));
  screen = screenAt(capture, 5);
  EXPECT_EQ(screen.rawFrameCount, 0u);
  EXPECT_EQ(screen.lines, (std::vector<std::string>{""}));
}

TEST(ReportHtml, PlainTerminalTextStripsControlSequences) {
  using Lines = std::vector<std::string>;
  EXPECT_EQ(plainTerminalText("\x1b[31mred\x1b[0m\r\nnext"), (Lines{"red", "next"}));
  EXPECT_EQ(plainTerminalText("\x1b]0;title\x07"
                              "a\x1b]8;;x\x1b\\b"),
            (Lines{"ab"}));
  EXPECT_EQ(plainTerminalText("\x1bPq#0\x1b\\"
                              "c\x1b(Bd\x1b"
                              "7e"),
            (Lines{"cde"}));
  EXPECT_EQ(plainTerminalText("10%\r50%\r100%\n"), (Lines{"100%", ""}));
  EXPECT_EQ(plainTerminalText("ab\bc\x07\x01\x7f"), (Lines{"ac"}));
  EXPECT_EQ(plainTerminalText("\xc3\xa9\b!"), (Lines{"!"}));
  EXPECT_EQ(plainTerminalText("\xc2\x9b"
                              "1m\xc2\xa9\tx"),
            (Lines{"\xc2\xa9\tx"}));
  EXPECT_EQ(plainTerminalText("bad \xff"), (Lines{"bad \xef\xbf\xbd"}));
}

// Bar widths of the timing chart by dimension, read back from the SVG.
std::map<std::string, double> barWidths(const std::string& page) {
  std::map<std::string, double> widths;
  std::regex bar(
      "<rect class=\"bar (within|beyond)\" data-dimension=\"([a-z]+)\"[^>]* width=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), bar); it != std::sregex_iterator();
       ++it) {
    widths[(*it)[2]] = std::stod((*it)[3]);
  }
  return widths;
}

TEST(ReportHtml, DrawsTimingBarsProportionalToTheLargestDeviations) {
  Capture capture = sampleCapture();
  Json comparison = compareCaptures(toJson(capture), toJson(capture));
  Json& timing = comparison["timing"];
  timing["tolerance_ms"] = 50;
  timing["terminal"] = {{"max_deviation_ms", 10}, {"exceeds_tolerance", false}};
  timing["interaction"] = {{"max_deviation_ms", 40}, {"exceeds_tolerance", false}};
  timing["process"] = {{"max_deviation_ms", 200}, {"exceeds_tolerance", true}};
  timing["shim"] = {{"max_deviation_ms", 0}, {"exceeds_tolerance", false}};
  timing["exit"] = {{"max_deviation_ms", nullptr}, {"exceeds_tolerance", false}};
  std::string page = report(capture, capture, comparison);

  auto widths = barWidths(page);
  ASSERT_EQ(widths.count("terminal"), 1u) << page;
  ASSERT_EQ(widths.count("process"), 1u);
  EXPECT_EQ(widths.count("exit"), 0u);  // nothing paired: no bar
  EXPECT_NEAR(widths["interaction"] / widths["terminal"], 4.0, 0.01);
  EXPECT_NEAR(widths["process"] / widths["terminal"], 20.0, 0.01);
  EXPECT_EQ(widths["shim"], 0.0);
  EXPECT_NE(page.find("<rect class=\"bar beyond\" data-dimension=\"process\""), std::string::npos);
  EXPECT_NE(page.find("<rect class=\"bar within\" data-dimension=\"interaction\""),
            std::string::npos);

  // The tolerance line sits where a 50 ms bar would end.
  std::smatch line;
  ASSERT_TRUE(
      std::regex_search(page, line, std::regex("<line class=\"tolerance\" x1=\"([0-9.]+)\"")));
  std::smatch rect;
  ASSERT_TRUE(std::regex_search(page, rect,
                                std::regex("<rect class=\"bar [a-z]+\" "
                                           "data-dimension=\"terminal\"[^>]* x=\"([0-9.]+)\"")));
  double x0 = std::stod(rect[1]);
  EXPECT_NEAR((std::stod(line[1]) - x0) / widths["terminal"], 5.0, 0.01);

  // The table shows the same numbers.
  EXPECT_NE(elementById(page, "tr", "dimension-process").find("200 ms (beyond tolerance)"),
            std::string::npos);
  EXPECT_NE(elementById(page, "tr", "dimension-exit").find("no matching times"), std::string::npos);
}

TEST(ReportHtml, BaselineComparisonsHaveNoTimingChart) {
  Capture left = sampleCapture();
  Capture right = withAnswer("Bye");
  CompareOptions options;
  options.baselineSemantics = true;
  std::string page = report(left, right, options);
  EXPECT_EQ(page.find("timing-chart"), std::string::npos);
  EXPECT_NE(elementById(page, "section", "timing").find("baseline semantics"), std::string::npos);
  EXPECT_NE(openingTag(page, "dimension-terminal").find("status-changed"), std::string::npos);
}

TEST(ReportHtml, TruncatedCapturesShowTheTruncatedReason) {
  Capture left = sampleCapture();
  Capture right = sampleCapture();
  right.truncated = true;
  std::string page = report(left, right);
  std::string section = elementById(page, "section", "first-divergence");
  EXPECT_NE(section.find("divergence-unknown"), std::string::npos);
  EXPECT_NE(section.find("At least one capture is truncated."), std::string::npos);
  for (const char* dimension : DIMENSIONS) {
    EXPECT_NE(openingTag(page, std::string("dimension-") + dimension).find("status-truncated"),
              std::string::npos);
  }
  EXPECT_NE(elementById(page, "section", "limitations").find("At least one capture is truncated."),
            std::string::npos);
}

}  // namespace
}  // namespace rea::evidence
