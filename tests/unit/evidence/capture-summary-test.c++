// The capture in words (evidence/capture-summary.h): every part a person looks for, the last
// screen, and the truncation said with the limit that caused it.
#include "evidence/capture-summary.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace rea::evidence::capture_summary {
namespace {

Json ownCaptureEvidence() {
  std::ifstream in(REA_SOURCE_DIR "/tests/data/captures/rea-own-capture.json");
  std::stringstream text;
  text << in.rdbuf();
  Json evidence = Json::object();
  evidence["evidence_id"] = "ev_example";
  evidence["parameters"] = {{"executable_name", "python3"}};
  evidence["normalized_result"] = Json::parse(text.str());
  return evidence;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CaptureSummary, SaysHowItEndedWhatItShowedAndWhatItCannotVouchFor) {
  std::string summary = summariseCapture(ownCaptureEvidence());
  EXPECT_EQ(summary.rfind("capture: python3 exited with code 0\n", 0), 0u) << summary;
  for (const char* part : {"  output:       ", " in 4 chunks, 2 rendered screens\n",
                           "  processes:    2 samples (exact)\n", "  files:        1 before, ",
                           "  shims:        1 call\n", "  truncated:    no\n",
                           "    - network: This adapter does not isolate external networking.\n",
                           "last screen", "  | Starting app\n", "evidence id: ev_example\n"}) {
    EXPECT_TRUE(has(summary, part)) << part << "\n" << summary;
  }
  EXPECT_TRUE(limitWarnings(ownCaptureEvidence()).empty());
}

TEST(CaptureSummary, ATruncatedCaptureNamesTheLimitInTheSummaryAndTheWarning) {
  Json evidence = ownCaptureEvidence();
  Json& capture = evidence["normalized_result"];
  capture["truncated"] = true;
  std::string sentence =
      "Limit reached: limits.output_bytes is 1000, 1000 bytes were kept and 3 further output "
      "chunks were dropped; keeping everything needs limits.output_bytes above 1000 (up to "
      "10000000).";
  capture["limitations"].push_back(sentence);
  std::string summary = summariseCapture(evidence);
  EXPECT_TRUE(has(summary, "  truncated:    yes\n    - " + sentence + "\n")) << summary;
  auto warnings = limitWarnings(evidence);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "rea: warning: the capture is truncated. " + sentence);
}

TEST(CaptureSummary, AnUnexpectedShapeIsShownAsMissingNotThrown) {
  EXPECT_NO_THROW(summariseCapture(Json::object()));
  EXPECT_NO_THROW(summariseCapture(Json::parse(R"({"normalized_result": [1, 2]})")));
  Json truncated = Json::parse(R"({"normalized_result": {"truncated": true}})");
  ASSERT_EQ(limitWarnings(truncated).size(), 1u);
  EXPECT_EQ(limitWarnings(truncated)[0],
            "rea: warning: the capture is truncated (see its limitations).");
}

}  // namespace
}  // namespace rea::evidence::capture_summary
