// Baseline comparison (SPEC B §9) and the rules both modes share. Every worked example of
// B §9.6 is reproduced byte for byte with `--baseline-semantics`.

#include "evidence/compare.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/unit/compare-fixtures.h"

namespace rea::evidence {
namespace {

using compare_fixtures::BASELINE;
using compare_fixtures::interactiveCapture;
using compare_fixtures::minimalCapture;

std::string baseline(const Json& left, const Json& right) {
  return compareCaptures(left, right, BASELINE).dump();
}

Json rawFrame(int64_t sequence, int64_t atMs, const std::string& data) {
  Json frame = Json::object();
  frame["sequence"] = sequence;
  frame["at_ms"] = atMs;
  frame["data"] = data;
  return frame;
}

Json processSample(int64_t atMs) {
  Json value = Json::object();
  value["at_ms"] = atMs;
  value["pid"] = 1;
  value["parent_pid"] = 0;
  value["command"] = "sh";
  value["process_group_id"] = 1;
  value["session_id"] = 1;
  return value;
}

constexpr char ALL_UNCHANGED[] =
    R"("terminal":"unchanged","interaction":"unchanged","exit":"unchanged",)"
    R"("filesystem":"unchanged","protocol":"unchanged","process":"unchanged","shim":"unchanged")";

// --- B §9.6 worked examples --------------------------------------------------------------------

TEST(CompareBaseline, IdenticalCapturesAreUnchangedWithNoDivergence) {
  EXPECT_EQ(baseline(minimalCapture(), minimalCapture()),
            std::string(R"({"status":"unchanged",)") + ALL_UNCHANGED +
                R"(,"first_divergence":{"status":"none"},"limitations":[]})");
}

TEST(CompareBaseline, AnAddedRawFrameMakesTerminalAdded) {
  Json right = minimalCapture();
  right["frames"].push_back(rawFrame(0, 0, "new"));
  EXPECT_EQ(baseline(minimalCapture(), right),
            R"({"status":"changed","terminal":"added","interaction":"unchanged",)"
            R"("exit":"unchanged","filesystem":"unchanged","protocol":"unchanged",)"
            R"("process":"unchanged","shim":"unchanged","first_divergence":{"status":"found",)"
            R"("dimension":"terminal","index":0,"left_at_ms":null,"right_at_ms":0,"left":null,)"
            R"("right":{"kind":"raw","sequence":0,"at_ms":0,"data":"new"}},"limitations":[]})");
}

TEST(CompareBaseline, DifferentRawDataMakesTerminalChanged) {
  Json left = minimalCapture();
  Json right = minimalCapture();
  left["frames"].push_back(rawFrame(0, 0, "bar"));
  right["frames"].push_back(rawFrame(0, 0, "foo\rbar"));
  EXPECT_EQ(baseline(left, right),
            R"({"status":"changed","terminal":"changed","interaction":"unchanged",)"
            R"("exit":"unchanged","filesystem":"unchanged","protocol":"unchanged",)"
            R"("process":"unchanged","shim":"unchanged","first_divergence":{"status":"found",)"
            R"("dimension":"terminal","index":0,"left_at_ms":0,"right_at_ms":0,)"
            R"("left":{"kind":"raw","sequence":0,"at_ms":0,"data":"bar"},)"
            R"("right":{"kind":"raw","sequence":0,"at_ms":0,"data":"foo\rbar"}},)"
            R"("limitations":[]})");
}

TEST(CompareBaseline, AProcessResidualMakesProcessAndStatusUnknown) {
  Json left = minimalCapture();
  left["residual_unknowns"].push_back({{"scope", "process"}, {"reason", "sampled"}});
  EXPECT_EQ(baseline(left, minimalCapture()),
            R"({"status":"unknown","terminal":"unchanged","interaction":"unchanged",)"
            R"("exit":"unchanged","filesystem":"unchanged","protocol":"unchanged",)"
            R"("process":"unknown","shim":"unchanged","first_divergence":{"status":"unknown",)"
            R"("reason":"Residual unknowns prevent proving that no divergence occurred."},)"
            R"("limitations":["sampled"]})");
}

TEST(CompareBaseline, OnlyASettlementDurationDifferenceMakesExitChanged) {
  Json right = minimalCapture();
  right["settlement"]["elapsed_ms"] = 51;
  EXPECT_EQ(baseline(minimalCapture(), right),
            R"({"status":"changed","terminal":"unchanged","interaction":"unchanged",)"
            R"("exit":"changed","filesystem":"unchanged","protocol":"unchanged",)"
            R"("process":"unchanged","shim":"unchanged","first_divergence":{"status":"found",)"
            R"("dimension":"exit","index":0,"left_at_ms":null,"right_at_ms":null,)"
            R"("left":{"code":0,"signal":null,"reason":"exited","settlement":{"state":"quiesced",)"
            R"("elapsed_ms":50,"cleanup_outcome":"not_required"}},)"
            R"("right":{"code":0,"signal":null,"reason":"exited","settlement":{"state":"quiesced",)"
            R"("elapsed_ms":51,"cleanup_outcome":"not_required"}}},"limitations":[]})");
}

TEST(CompareBaseline, DifferentNormalizationMakesEveryDimensionButExitUnknown) {
  Json left = minimalCapture();
  left["normalization"]["time_bucket_ms"] = 20;
  EXPECT_EQ(baseline(left, minimalCapture()),
            R"({"status":"unknown","terminal":"unknown","interaction":"unknown",)"
            R"("exit":"unchanged","filesystem":"unknown","protocol":"unknown",)"
            R"("process":"unknown","shim":"unknown","first_divergence":{"status":"unknown",)"
            R"("reason":"Residual unknowns prevent proving that no divergence occurred."},)"
            R"("limitations":["Capture normalization rules differ."]})");
}

TEST(CompareBaseline, AnExtraCheckpointIsFoundAtItsIndex) {
  Json right = minimalCapture();
  Json checkpoint = Json::object();
  checkpoint["name"] = "during_run";
  checkpoint["at_ms"] = 10;
  checkpoint["files"] = Json::array();
  checkpoint["effects"] = Json::array();
  checkpoint["truncated"] = false;
  right["filesystem_checkpoints"].insert(right["filesystem_checkpoints"].begin() + 1, checkpoint);
  EXPECT_EQ(baseline(minimalCapture(), right),
            R"({"status":"changed","terminal":"unchanged","interaction":"unchanged",)"
            R"("exit":"unchanged","filesystem":"changed","protocol":"unchanged",)"
            R"("process":"unchanged","shim":"unchanged","first_divergence":{"status":"found",)"
            R"("dimension":"filesystem","index":1,"left_at_ms":50,"right_at_ms":10,)"
            R"("left":{"name":"after_settlement","at_ms":50,"files":[],"effects":[],)"
            R"("truncated":false},"right":{"name":"during_run","at_ms":10,"files":[],)"
            R"("effects":[],"truncated":false}},"limitations":[]})");
}

TEST(CompareBaseline, TheEarliestCandidateAcrossDimensionsIsTheFirstDivergence) {
  Json right = minimalCapture();
  right["frames"].push_back(rawFrame(0, 30, "late"));
  right["process_samples"].push_back(processSample(20));
  EXPECT_EQ(baseline(minimalCapture(), right),
            R"({"status":"changed","terminal":"added","interaction":"unchanged",)"
            R"("exit":"unchanged","filesystem":"unchanged","protocol":"unchanged",)"
            R"("process":"added","shim":"unchanged","first_divergence":{"status":"found",)"
            R"("dimension":"process","index":0,"left_at_ms":null,"right_at_ms":20,"left":null,)"
            R"("right":{"at_ms":20,"pid":1,"parent_pid":0,"command":"sh",)"
            R"("process_group_id":1,"session_id":1}},"limitations":[]})");
}

// --- statuses and shared rules -----------------------------------------------------------------

TEST(CompareBaseline, ARightListEmptiedMakesTheDimensionRemoved) {
  Json left = minimalCapture();
  left["shim_events"].push_back({{"sequence", 0},
                                 {"at_ms", 5},
                                 {"command", "git"},
                                 {"route_index", nullptr},
                                 {"arguments", Json::array()},
                                 {"working_directory", "/w"},
                                 {"outcome", "unmatched"}});
  Json result = compareCaptures(left, minimalCapture(), BASELINE);
  EXPECT_EQ(result["shim"], "removed");
  EXPECT_EQ(result["status"], "changed");
  EXPECT_EQ(result["first_divergence"]["dimension"], "shim");
  EXPECT_EQ(result["first_divergence"]["right"], nullptr);
  EXPECT_EQ(result["first_divergence"]["left_at_ms"], 5);
}

TEST(CompareBaseline, ATruncatedCaptureShortCircuitsEverything) {
  Json left = minimalCapture();
  left["truncated"] = true;
  Json right = interactiveCapture();  // every other difference is ignored
  std::string expected =
      R"({"status":"truncated","terminal":"truncated","interaction":"truncated",)"
      R"("exit":"truncated","filesystem":"truncated","protocol":"truncated",)"
      R"("process":"truncated","shim":"truncated","first_divergence":{"status":"unknown",)"
      R"("reason":"At least one capture is truncated."},)"
      R"("limitations":["At least one capture is truncated."]})";
  EXPECT_EQ(baseline(left, right), expected);
  EXPECT_EQ(baseline(right, left), expected);
}

TEST(CompareBaseline, ObservedDifferencesOutrankResidualUncertainty) {
  Json left = minimalCapture();
  left["residual_unknowns"].push_back({{"scope", "process"}, {"reason", "sampled"}});
  Json right = minimalCapture();
  right["process_samples"].push_back(processSample(20));
  Json result = compareCaptures(left, right, BASELINE);
  EXPECT_EQ(result["process"], "unknown");
  EXPECT_EQ(result["status"], "unknown");
  EXPECT_EQ(result["first_divergence"]["status"], "found");
  EXPECT_EQ(result["first_divergence"]["dimension"], "process");
}

TEST(CompareBaseline, CleanupAndNetworkResidualsTouchNoDimensionButBlockProofOfNoDivergence) {
  Json left = minimalCapture();
  left["residual_unknowns"].push_back({{"scope", "network"}, {"reason", "not isolated"}});
  Json right = minimalCapture();
  right["residual_unknowns"].push_back({{"scope", "cleanup"}, {"reason", "cleanup unseen"}});
  EXPECT_EQ(baseline(left, right),
            std::string(R"({"status":"unchanged",)") + ALL_UNCHANGED +
                R"(,"first_divergence":{"status":"unknown","reason":"Residual unknowns prevent )"
                R"(proving that no divergence occurred."},)"
                R"("limitations":["not isolated","cleanup unseen"]})");
}

TEST(CompareBaseline, OnlyAnExitResidualMakesExitUnknown) {
  Json left = minimalCapture();
  left["normalization"]["pids"] = false;
  Json right = minimalCapture();
  right["settlement"]["elapsed_ms"] = 51;
  Json result = compareCaptures(left, right, BASELINE);
  EXPECT_EQ(result["exit"], "changed");  // normalization does not matter for exit
  EXPECT_EQ(result["status"], "changed");

  left = minimalCapture();
  left["residual_unknowns"].push_back({{"scope", "exit"}, {"reason", "exit unseen"}});
  result = compareCaptures(left, right, BASELINE);
  EXPECT_EQ(result["exit"], "unknown");
  EXPECT_EQ(result["status"], "unknown");
  EXPECT_EQ(result["first_divergence"]["dimension"], "exit");
}

TEST(CompareBaseline, EachScopeMakesOnlyItsDimensionUnknown) {
  for (const char* scope :
       {"terminal", "interaction", "exit", "filesystem", "protocol", "process", "shim"}) {
    Json right = minimalCapture();
    right["residual_unknowns"].push_back({{"scope", scope}, {"reason", "r"}});
    Json result = compareCaptures(minimalCapture(), right, BASELINE);
    for (const char* dimension :
         {"terminal", "interaction", "exit", "filesystem", "protocol", "process", "shim"}) {
      EXPECT_EQ(result[dimension], std::string(dimension) == scope ? "unknown" : "unchanged")
          << scope << " / " << dimension;
    }
    EXPECT_EQ(result["status"], "unknown");
  }
}

TEST(CompareBaseline, TiesGoToTheEarlierDimension) {
  Json right = minimalCapture();
  right["frames"].push_back(rawFrame(0, 20, "x"));
  right["process_samples"].push_back(processSample(20));
  EXPECT_EQ(compareCaptures(minimalCapture(), right, BASELINE)["first_divergence"]["dimension"],
            "terminal");

  // Both candidates without a time (+∞): interaction comes before exit.
  Json left = minimalCapture();
  left["interaction_events"].push_back({{"sequence", 0},
                                        {"scheduled_at_ms", 5},
                                        {"dispatched_at_ms", 5},
                                        {"type", "signal"},
                                        {"data", "SIGINT"},
                                        {"outcome", "dispatched"}});
  right = minimalCapture();
  right["settlement"]["elapsed_ms"] = 51;
  Json result = compareCaptures(left, right, BASELINE);
  EXPECT_EQ(result["first_divergence"]["dimension"], "interaction");
  EXPECT_EQ(result["first_divergence"]["left_at_ms"], nullptr);
  EXPECT_EQ(result["interaction"], "removed");
}

TEST(CompareBaseline, ATimedCandidateBeatsAnUntimedOneInAnEarlierDimension) {
  Json right = minimalCapture();
  right["settlement"]["elapsed_ms"] = 51;               // exit: no time
  right["protocol_events"].push_back({{"sequence", 0},  // protocol: at 900
                                      {"at_ms", 900},
                                      {"protocol", "websocket"},
                                      {"direction", "sent"},
                                      {"method", nullptr},
                                      {"path", "/ws"},
                                      {"data", "hello"},
                                      {"outcome", "matched"}});
  EXPECT_EQ(compareCaptures(minimalCapture(), right, BASELINE)["first_divergence"]["dimension"],
            "protocol");
}

TEST(CompareBaseline, DeepEqualityIgnoresKeyOrder) {
  Json left = minimalCapture();
  left["frames"].push_back(rawFrame(0, 0, "x"));
  Json right = minimalCapture();
  right["frames"].push_back(Json::parse(R"({"data":"x","at_ms":0,"sequence":0})"));
  right["normalization"] =
      Json::parse(R"({"time_bucket_ms":10,"patterns":[],"ports":true,"pids":true,"paths":true})");
  Json result = compareCaptures(left, right, BASELINE);
  EXPECT_EQ(result["status"], "unchanged");
  EXPECT_EQ(result["first_divergence"], Json::parse(R"({"status":"none"})"));
}

TEST(CompareBaseline, LimitationsListCapturesThenResidualsThenNormalization) {
  Json left = minimalCapture();
  Json right = minimalCapture();
  left["limitations"] = {"L1", "L2"};
  right["limitations"] = {"R1"};
  left["residual_unknowns"].push_back({{"scope", "process"}, {"reason", "LR"}});
  right["residual_unknowns"].push_back({{"scope", "network"}, {"reason", "RR1"}});
  right["residual_unknowns"].push_back({{"scope", "process"}, {"reason", "LR"}});
  right["normalization"]["ports"] = false;
  EXPECT_EQ(compareCaptures(left, right, BASELINE)["limitations"].dump(),
            R"(["L1","L2","R1","LR","RR1","LR","Capture normalization rules differ."])");
}

TEST(CompareBaseline, TerminalObservationsSortByTimeThenRawBeforeRenderedThenSequence) {
  Json left = interactiveCapture();
  Json right = interactiveCapture();
  // Merged order: raw0@0, rendered0@0, raw1@100, raw2@100, rendered1@100, rendered2@100, ...
  right["rendered_frames"][2]["cursor_x"] = 3;
  Json first = compareCaptures(left, right, BASELINE)["first_divergence"];
  EXPECT_EQ(first["index"], 5);
  EXPECT_EQ(first["left"]["kind"], "rendered");
  EXPECT_EQ(first["left"]["sequence"], 2);

  right = interactiveCapture();
  right["frames"][2]["data"] = "ho\r\n$ ";
  first = compareCaptures(left, right, BASELINE)["first_divergence"];
  EXPECT_EQ(first["index"], 3);
  EXPECT_EQ(first["right"].dump(), R"({"kind":"raw","sequence":2,"at_ms":100,"data":"ho\r\n$ "})");
}

TEST(CompareBaseline, HasNoTimingMember) {
  EXPECT_FALSE(
      compareCaptures(interactiveCapture(), interactiveCapture(), BASELINE).contains("timing"));
}

// --- B §9.1 rule 3 -----------------------------------------------------------------------------

TEST(CaptureAge, IsOnlyCheckedWhenAMaximumIsGiven) {
  EXPECT_EQ(checkCaptureAge(std::nullopt, 1'000'000, 0, 0), std::nullopt);
}

TEST(CaptureAge, AcceptsACaptureExactlyAtTheMaximumAge) {
  EXPECT_EQ(checkCaptureAge(100, 1'000, 900, 950), std::nullopt);
}

TEST(CaptureAge, RejectsWhenEitherCaptureIsOlder) {
  EXPECT_EQ(checkCaptureAge(100, 1'000, 899, 1'000),
            std::optional<std::string>("Process capture exceeds max_capture_age_ms"));
  EXPECT_EQ(checkCaptureAge(100, 1'000, 1'000, 899),
            std::optional<std::string>("Process capture exceeds max_capture_age_ms"));
}

}  // namespace
}  // namespace rea::evidence
