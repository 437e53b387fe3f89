// Default comparison (SPEC A7): content with timestamps masked, timing reported separately.

#include "evidence/compare.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/unit/compare-fixtures.h"

namespace rea::evidence {
namespace {

using compare_fixtures::BASELINE;
using compare_fixtures::interactiveCapture;
using compare_fixtures::minimalCapture;

Json compare(const Json& left, const Json& right, CompareOptions options = {}) {
  return compareCaptures(left, right, options);
}

Json rendered(int64_t sequence, int64_t atMs, int64_t cursorX, int64_t cursorY,
              std::vector<std::string> lines) {
  Json frame = Json::object();
  frame["sequence"] = sequence;
  frame["at_ms"] = atMs;
  frame["columns"] = 10;
  frame["rows"] = 3;
  frame["cursor_x"] = cursorX;
  frame["cursor_y"] = cursorY;
  frame["active_buffer"] = "normal";
  frame["lines"] = lines;
  frame["serialized_state"] = "state " + std::to_string(sequence);
  return frame;
}

Json raw(int64_t sequence, int64_t atMs, const std::string& data) {
  return {{"sequence", sequence}, {"at_ms", atMs}, {"data", data}};
}

Json sample(int64_t atMs, int64_t pid, int64_t parent, const std::string& command, int64_t group) {
  return {{"at_ms", atMs},
          {"pid", pid},
          {"parent_pid", parent},
          {"command", command},
          {"process_group_id", group},
          {"session_id", 1}};
}

Json rechunked() {
  // The same session as interactiveCapture(), read in different pieces at different
  // (same-bucket) times, with one rendered frame per piece.
  Json capture = interactiveCapture();
  capture["frames"] = {raw(0, 0, "$ "), raw(1, 100, "echo hi\r\nhi\r\n"), raw(2, 100, "$ "),
                       raw(3, 200, "exit\r"), raw(4, 200, "\n")};
  capture["rendered_frames"] = {rendered(0, 0, 2, 0, {"$         ", "          ", "          "}),
                                rendered(1, 100, 0, 2, {"$ echo hi ", "hi        ", "          "}),
                                rendered(2, 100, 2, 2, {"$ echo hi ", "hi        ", "$         "}),
                                rendered(3, 200, 6, 2, {"$ echo hi ", "hi        ", "$ exit    "}),
                                rendered(4, 200, 0, 2, {"hi        ", "$ exit    ", "          "})};
  return capture;
}

Json reorderedSiblings() {
  // `cat | wc -l` observed wc first: the renumbering gives wc 3 and cat 4 (cat's pid first
  // appears as the pipeline's process group).
  Json capture = interactiveCapture();
  capture["process_samples"] = {sample(0, 1, 2, "sh", 1), sample(100, 3, 1, "wc -l", 4),
                                sample(100, 4, 1, "cat", 4), sample(150, 3, 1, "", 4),
                                sample(150, 4, 1, "", 4)};
  capture["process_samples"][0]["session_id"] = 1;
  return capture;
}

// --- equality of repeated deterministic runs ----------------------------------------------------

TEST(CompareContent, IdenticalCapturesAreUnchangedWithZeroDeviation) {
  Json capture = interactiveCapture();
  EXPECT_EQ(compare(capture, capture).dump(),
            R"({"status":"unchanged","terminal":"unchanged","interaction":"unchanged",)"
            R"("exit":"unchanged","filesystem":"unchanged","protocol":"unchanged",)"
            R"("process":"unchanged","shim":"unchanged","first_divergence":{"status":"none"},)"
            R"("limitations":["The filesystem is observed through before/after snapshots )"
            R"(rather than syscall tracing.","The filesystem is observed through before/after )"
            R"(snapshots rather than syscall tracing."],"timing":{"tolerance_ms":50,)"
            R"("terminal":{"max_deviation_ms":0,"exceeds_tolerance":false},)"
            R"("interaction":{"max_deviation_ms":0,"exceeds_tolerance":false},)"
            R"("exit":{"max_deviation_ms":0,"exceeds_tolerance":false},)"
            R"("filesystem":{"max_deviation_ms":0,"exceeds_tolerance":false},)"
            R"("protocol":{"max_deviation_ms":0,"exceeds_tolerance":false},)"
            R"("process":{"max_deviation_ms":0,"exceeds_tolerance":false},)"
            R"("shim":{"max_deviation_ms":0,"exceeds_tolerance":false}}})");
}

TEST(CompareContent, ReadBoundariesDoNotMatterButDoInBaselineMode) {
  Json result = compare(interactiveCapture(), rechunked());
  EXPECT_EQ(result["terminal"], "unchanged");
  EXPECT_EQ(result["status"], "unchanged");
  EXPECT_EQ(result["first_divergence"].dump(), R"({"status":"none"})");

  Json baseline = compare(interactiveCapture(), rechunked(), BASELINE);
  EXPECT_EQ(baseline["terminal"], "changed");
  EXPECT_EQ(baseline["status"], "changed");
}

TEST(CompareContent, SiblingObservationOrderAndRenumberingDoNotMatter) {
  Json result = compare(interactiveCapture(), reorderedSiblings());
  EXPECT_EQ(result["process"], "unchanged");
  EXPECT_EQ(result["status"], "unchanged");
  EXPECT_EQ(compare(interactiveCapture(), reorderedSiblings(), BASELINE)["process"], "changed");
}

TEST(CompareContent, IdenticalSiblingsArePairedByTime) {
  Json left = interactiveCapture();
  left["process_samples"] = {sample(0, 1, 2, "sh", 1), sample(100, 3, 1, "sleep 1", 3),
                             sample(300, 4, 1, "sleep 1", 4)};
  Json right = interactiveCapture();
  right["process_samples"] = {sample(0, 1, 2, "sh", 1), sample(290, 3, 1, "sleep 1", 3),
                              sample(110, 4, 1, "sleep 1", 4)};
  right["process_samples"][1]["at_ms"] = 110;  // samples are time-ordered: swap the numbers
  right["process_samples"][2]["at_ms"] = 290;
  right["process_samples"][1]["pid"] = 4;
  right["process_samples"][1]["process_group_id"] = 4;
  right["process_samples"][2]["pid"] = 3;
  right["process_samples"][2]["process_group_id"] = 3;
  Json result = compare(left, right);
  EXPECT_EQ(result["process"], "unchanged");
  EXPECT_EQ(result["timing"]["process"]["max_deviation_ms"], 10);
}

TEST(CompareContent, ARepeatedSampleWithOnlyANewParentAddsNoHistory) {
  Json right = interactiveCapture();
  // cat's parent exits and cat is reparented: sampled again, same state.
  right["process_samples"].insert(right["process_samples"].begin() + 3,
                                  sample(120, 3, 9, "cat", 3));
  EXPECT_EQ(compare(interactiveCapture(), right)["process"], "unchanged");
}

// --- timing --------------------------------------------------------------------------------------

TEST(CompareContent, TimingWithinToleranceIsReportedButUnchanged) {
  Json right = interactiveCapture();
  right["frames"][3]["at_ms"] = 240;
  right["rendered_frames"][3]["at_ms"] = 240;
  right["interaction_events"][1]["dispatched_at_ms"] = 220;
  right["settlement"]["elapsed_ms"] = 70;
  right["filesystem_checkpoints"][1]["at_ms"] = 140;
  right["filesystem_checkpoints"][2]["at_ms"] = 250;
  right["protocol_events"][1]["at_ms"] = 130;
  right["process_samples"][4]["at_ms"] = 190;
  right["shim_events"][0]["at_ms"] = 150;
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["status"], "unchanged");
  EXPECT_EQ(result["first_divergence"].dump(), R"({"status":"none"})");
  EXPECT_EQ(result["timing"].dump(),
            R"({"tolerance_ms":50,"terminal":{"max_deviation_ms":40,"exceeds_tolerance":false},)"
            R"("interaction":{"max_deviation_ms":20,"exceeds_tolerance":false},)"
            R"("exit":{"max_deviation_ms":40,"exceeds_tolerance":false},)"
            R"("filesystem":{"max_deviation_ms":30,"exceeds_tolerance":false},)"
            R"("protocol":{"max_deviation_ms":10,"exceeds_tolerance":false},)"
            R"("process":{"max_deviation_ms":40,"exceeds_tolerance":false},)"
            R"("shim":{"max_deviation_ms":50,"exceeds_tolerance":false}})");
}

TEST(CompareContent, TimingBeyondToleranceChangesTheDimensionAndCanBeTheFirstDivergence) {
  Json right = interactiveCapture();
  right["shim_events"][0]["at_ms"] = 170;
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["shim"], "changed");
  EXPECT_EQ(result["status"], "changed");
  EXPECT_EQ(result["first_divergence"].dump(),
            R"({"status":"found","dimension":"shim","index":0,"left_at_ms":100,)"
            R"("right_at_ms":170,"left":{"sequence":0,"at_ms":100,"command":"git",)"
            R"("route_index":null,"arguments":["status"],)"
            R"("working_directory":"<working-directory>","outcome":"unmatched"},)"
            R"("right":{"sequence":0,"at_ms":170,"command":"git","route_index":null,)"
            R"("arguments":["status"],"working_directory":"<working-directory>",)"
            R"("outcome":"unmatched"},"timing":true,"deviation_ms":70})");
  EXPECT_EQ(result["timing"]["shim"].dump(), R"({"max_deviation_ms":70,"exceeds_tolerance":true})");
}

TEST(CompareContent, TheToleranceCanBeSetOrFollowsTheBucket) {
  Json right = interactiveCapture();
  right["shim_events"][0]["at_ms"] = 170;
  EXPECT_EQ(compare(interactiveCapture(), right, {false, 70})["shim"], "unchanged");
  EXPECT_EQ(compare(interactiveCapture(), right, {false, 69})["shim"], "changed");

  Json left = interactiveCapture();
  left["normalization"]["time_bucket_ms"] = 20;
  right["normalization"]["time_bucket_ms"] = 20;
  Json result = compare(left, right);
  EXPECT_EQ(result["timing"]["tolerance_ms"], 100);
  EXPECT_EQ(result["shim"], "unchanged");

  EXPECT_EQ(defaultTimingToleranceMs(Json::parse(R"({"time_bucket_ms":1})")), 50);
  EXPECT_EQ(defaultTimingToleranceMs(Json::parse(R"({"time_bucket_ms":11})")), 55);
  EXPECT_EQ(defaultTimingToleranceMs(Json::parse(R"({})")), 50);
}

TEST(CompareContent, LateOutputIsFoundAtTheFirstLateByte) {
  Json right = interactiveCapture();
  right["frames"][3]["at_ms"] = 300;
  right["rendered_frames"][3]["at_ms"] = 300;
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["terminal"], "changed");
  EXPECT_EQ(result["first_divergence"].dump(),
            R"({"status":"found","dimension":"terminal","index":17,"left_at_ms":200,)"
            R"("right_at_ms":300,"left":{"kind":"stream","excerpt_offset":0,)"
            R"("excerpt":"$ echo hi\r\nhi\r\n$ exit\r\n"},"right":{"kind":"stream",)"
            R"("excerpt_offset":0,"excerpt":"$ echo hi\r\nhi\r\n$ exit\r\n"},)"
            R"("timing":true,"deviation_ms":100})");
}

TEST(CompareContent, TimingIsOnlyPairedWhereContentMatched) {
  Json right = interactiveCapture();
  right["protocol_events"][1]["data"] = "found";
  right["protocol_events"][1]["at_ms"] = 900;
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["protocol"], "changed");
  EXPECT_EQ(result["timing"]["protocol"].dump(),
            R"({"max_deviation_ms":0,"exceeds_tolerance":false})");
  EXPECT_EQ(result["first_divergence"]["index"], 1);
  EXPECT_FALSE(result["first_divergence"].contains("timing"));
}

TEST(CompareContent, NothingPairedMeansNoDeviation) {
  Json result = compare(minimalCapture(), minimalCapture());
  EXPECT_EQ(result["timing"]["terminal"].dump(),
            R"({"max_deviation_ms":null,"exceeds_tolerance":false})");
  EXPECT_EQ(result["timing"]["filesystem"]["max_deviation_ms"], 0);
}

TEST(CompareContent, TiesBetweenContentAndTimingGoToTheEarlierDimension) {
  Json right = interactiveCapture();
  right["shim_events"][0]["at_ms"] = 170;                // shim timing at min(100, 170) = 100
  right["interaction_events"][0]["data"] = "echo ho\r";  // interaction content at 100
  EXPECT_EQ(compare(interactiveCapture(), right)["first_divergence"]["dimension"], "interaction");
}

// --- a real content change in each dimension -----------------------------------------------------

TEST(CompareContent, AStreamChangeIsFoundAtTheFirstDifferingByte) {
  Json right = interactiveCapture();
  right["frames"][2]["data"] = "ho\r\n$ ";
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["terminal"], "changed");
  EXPECT_EQ(result["first_divergence"].dump(),
            R"({"status":"found","dimension":"terminal","index":12,"left_at_ms":100,)"
            R"("right_at_ms":100,"left":{"kind":"stream","excerpt_offset":0,)"
            R"("excerpt":"$ echo hi\r\nhi\r\n$ exit\r\n"},"right":{"kind":"stream",)"
            R"("excerpt_offset":0,"excerpt":"$ echo hi\r\nho\r\n$ exit\r\n"}})");
}

TEST(CompareContent, APidPlaceholderMatchesANumberButNotInBaselineMode) {
  // `seq` printed a number that happened to be a pid of the left run (A15).
  Json left = minimalCapture();
  Json right = minimalCapture();
  left["frames"] = {raw(0, 0, "1\r\n2\r\n"), raw(1, 10, "<pid>\r\n4\r\n")};
  right["frames"] = {raw(0, 0, "1\r\n"), raw(1, 0, "2\r\n"), raw(2, 10, "312\r\n4\r\n")};
  left["rendered_frames"] = {rendered(0, 10, 0, 2, {"2", "<pid>", "4"})};
  right["rendered_frames"] = {rendered(0, 10, 0, 2, {"2", "312", "4"})};
  Json result = compare(left, right);
  EXPECT_EQ(result["terminal"], "unchanged");
  EXPECT_EQ(result["first_divergence"].dump(), R"({"status":"none"})");
  EXPECT_EQ(result["timing"]["terminal"]["max_deviation_ms"], 0);
  EXPECT_EQ(compare(left, right, BASELINE)["terminal"], "changed");

  // A real difference after the placeholder is still found, each excerpt at its own offset.
  right["frames"][2]["data"] = "312\r\n5\r\n";
  Json first = compare(left, right)["first_divergence"];
  EXPECT_EQ(first["index"], 13);
  EXPECT_EQ(first["left_at_ms"], 10);
  EXPECT_EQ(first["right_at_ms"], 10);
  EXPECT_EQ(first["left"]["excerpt"], "1\r\n2\r\n<pid>\r\n4\r\n");
  EXPECT_EQ(first["right"]["excerpt"], "1\r\n2\r\n312\r\n5\r\n");
}

TEST(CompareContent, StreamExcerptsAreCutAtCharacterBoundaries) {
  Json left = minimalCapture();
  Json right = minimalCapture();
  // "é" occupies bytes 15–16, so the window starting at byte 16 moves on to byte 17; "雪" at
  // 62–64 would be cut by the window end at 64 and is left out.
  std::string prefix = std::string(15, 'a') + "\xC3\xA9" + std::string(23, 'b');  // 40 bytes
  std::string tail = std::string(21, 'c') + "\xE9\x9B\xAA";
  left["frames"] = {raw(0, 0, prefix.substr(0, 20)), raw(1, 10, prefix.substr(20) + "X" + tail)};
  right["frames"] = Json::array({raw(0, 0, prefix + "Y" + tail)});  // not {x}: a copy in clang
  Json first = compare(left, right)["first_divergence"];
  EXPECT_EQ(first["index"], 40);
  EXPECT_EQ(first["left_at_ms"], 10);
  EXPECT_EQ(first["right_at_ms"], 0);
  EXPECT_EQ(first["left"]["excerpt_offset"], 17);
  EXPECT_EQ(first["left"]["excerpt"], std::string(23, 'b') + "X" + std::string(21, 'c'));
  EXPECT_EQ(first["right"]["excerpt"], std::string(23, 'b') + "Y" + std::string(21, 'c'));
}

TEST(CompareContent, AStreamThatStopsEarlyHasNoTimeAtTheDivergence) {
  Json right = interactiveCapture();
  right["frames"].erase(3);
  right["rendered_frames"].erase(3);
  Json first = compare(interactiveCapture(), right)["first_divergence"];
  EXPECT_EQ(first["dimension"], "terminal");
  EXPECT_EQ(first["index"], 17);
  EXPECT_EQ(first["left_at_ms"], 200);
  EXPECT_EQ(first["right_at_ms"], nullptr);
  EXPECT_EQ(first["right"]["excerpt"], "$ echo hi\r\nhi\r\n$ ");
}

TEST(CompareContent, AScreenChangeIsFoundAtItsMoment) {
  Json right = interactiveCapture();
  right["rendered_frames"][0]["lines"][0] = "$>        ";
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["terminal"], "changed");
  // Moments: interaction 0 (@100 sees rendered frame 0), interaction 1, echoed, after_settlement,
  // end. The echo rendered at 100 is not yet on screen when the input is sent at 100.
  EXPECT_EQ(result["first_divergence"].dump(),
            R"({"status":"found","dimension":"terminal","index":0,"left_at_ms":100,)"
            R"("right_at_ms":100,"left":{"kind":"screen","moment":"interaction",)"
            R"("interaction_sequence":0,"screen":{"columns":10,"rows":3,"cursor_x":2,)"
            R"("cursor_y":0,"active_buffer":"normal","lines":["$         ","          ",)"
            R"("          "]}},"right":{"kind":"screen","moment":"interaction",)"
            R"("interaction_sequence":0,"screen":{"columns":10,"rows":3,"cursor_x":2,)"
            R"("cursor_y":0,"active_buffer":"normal","lines":["$>        ","          ",)"
            R"("          "]}}})");
}

TEST(CompareContent, ScreensAtCheckpointsAndTheEndAreCompared) {
  Json right = interactiveCapture();
  right["rendered_frames"][2]["cursor_x"] = 3;  // current at interaction 1 and at `echoed`
  Json first = compare(interactiveCapture(), right)["first_divergence"];
  EXPECT_EQ(first["index"], 1);
  EXPECT_EQ(first["left_at_ms"], 200);

  right = interactiveCapture();
  right["rendered_frames"][3]["active_buffer"] = "alternate";  // only at after_settlement, end
  first = compare(interactiveCapture(), right)["first_divergence"];
  EXPECT_EQ(first["index"], 3);
  EXPECT_EQ(first["left"]["checkpoint"], "after_settlement");
  EXPECT_EQ(first["left_at_ms"], 230);

  right = interactiveCapture();
  right["rendered_frames"].push_back(rendered(4, 300, 0, 0, {"", "", ""}));  // after everything
  first = compare(interactiveCapture(), right)["first_divergence"];
  EXPECT_EQ(first["index"], 4);
  EXPECT_EQ(first["left"]["moment"], "end");
  EXPECT_EQ(first["right_at_ms"], 300);
}

TEST(CompareContent, AnExtraCheckpointIsAFilesystemDifferenceNotATerminalOne) {
  // Neither capture printed anything; the right one took one more checkpoint.
  Json right = minimalCapture();
  Json checkpoint = Json::object();
  checkpoint["name"] = "during_run";
  checkpoint["at_ms"] = 10;
  checkpoint["files"] = Json::array();
  checkpoint["effects"] = Json::array();
  checkpoint["truncated"] = false;
  right["filesystem_checkpoints"].insert(right["filesystem_checkpoints"].begin() + 1, checkpoint);
  Json result = compare(minimalCapture(), right);
  EXPECT_EQ(result["terminal"], "unchanged") << result.dump();
  EXPECT_EQ(result["filesystem"], "changed");
  EXPECT_EQ(result["first_divergence"]["dimension"], "filesystem") << result.dump();
  // With output on both sides, the screens at the shared checkpoints are still compared.
  Json screens = interactiveCapture();
  screens["filesystem_checkpoints"].insert(screens["filesystem_checkpoints"].begin() + 1,
                                           checkpoint);
  result = compare(interactiveCapture(), screens);
  EXPECT_EQ(result["terminal"], "unchanged") << result.dump();
  EXPECT_EQ(result["first_divergence"]["dimension"], "filesystem") << result.dump();
}

TEST(CompareContent, OutputAppearingOnlyOnOneSideIsAddedOrRemoved) {
  Json result = compare(minimalCapture(), interactiveCapture());
  EXPECT_EQ(result["terminal"], "added");
  EXPECT_EQ(result["process"], "added");
  EXPECT_EQ(result["filesystem"], "changed");
  result = compare(interactiveCapture(), minimalCapture());
  EXPECT_EQ(result["terminal"], "removed");
  EXPECT_EQ(result["interaction"], "removed");
  EXPECT_EQ(result["shim"], "removed");
  EXPECT_EQ(result["protocol"], "removed");
}

TEST(CompareContent, AnInteractionChangeIsFoundAtItsIndex) {
  Json right = interactiveCapture();
  right["interaction_events"][1]["data"] = "quit\r";
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["interaction"], "changed");
  EXPECT_EQ(result["first_divergence"].dump(),
            R"({"status":"found","dimension":"interaction","index":1,"left_at_ms":200,)"
            R"("right_at_ms":200,"left":{"sequence":1,"type":"input","data":"exit\r",)"
            R"("outcome":"dispatched"},"right":{"sequence":1,"type":"input","data":"quit\r",)"
            R"("outcome":"dispatched"}})");
}

TEST(CompareContent, AnExitChangeIgnoresTheSettlementDuration) {
  Json right = interactiveCapture();
  right["exit"]["code"] = 1;
  right["settlement"]["elapsed_ms"] = 40;
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["exit"], "changed");
  EXPECT_EQ(result["first_divergence"].dump(),
            R"({"status":"found","dimension":"exit","index":0,"left_at_ms":null,)"
            R"("right_at_ms":null,"left":{"code":0,"signal":null,"reason":"exited",)"
            R"("settlement":{"state":"quiesced","cleanup_outcome":"not_required"}},)"
            R"("right":{"code":1,"signal":null,"reason":"exited","settlement":)"
            R"({"state":"quiesced","cleanup_outcome":"not_required"}}})");
  EXPECT_EQ(result["timing"]["exit"]["max_deviation_ms"], nullptr);
}

TEST(CompareContent, AFilesystemChangeIsFoundInItsCheckpointOrInTheFinalEntry) {
  Json right = interactiveCapture();
  right["files_after"][1]["size"] = 4;
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["filesystem"], "changed");
  EXPECT_EQ(result["first_divergence"]["index"], 3);
  EXPECT_EQ(result["first_divergence"]["left"]["name"], "final");
  EXPECT_EQ(result["first_divergence"]["left_at_ms"], nullptr);

  right = interactiveCapture();
  right["filesystem_checkpoints"][1]["effects"][1]["status"] = "modified";
  Json first = compare(interactiveCapture(), right)["first_divergence"];
  EXPECT_EQ(first["index"], 1);
  EXPECT_EQ(first["left_at_ms"], 110);
  EXPECT_FALSE(first["left"].contains("at_ms"));
  EXPECT_EQ(first["left"]["name"], "echoed");
}

TEST(CompareContent, AProtocolChangeIsFoundAtItsIndex) {
  Json right = interactiveCapture();
  right["protocol_events"][1]["data"] = "found";
  Json first = compare(interactiveCapture(), right)["first_divergence"];
  EXPECT_EQ(first.dump(),
            R"({"status":"found","dimension":"protocol","index":1,"left_at_ms":120,)"
            R"("right_at_ms":120,"left":{"sequence":1,"protocol":"http","direction":"response",)"
            R"("method":"GET","path":"/v1","data":"not found","outcome":"unmatched"},)"
            R"("right":{"sequence":1,"protocol":"http","direction":"response","method":"GET",)"
            R"("path":"/v1","data":"found","outcome":"unmatched"}})");
}

TEST(CompareContent, AShimChangeIsFoundAtItsIndex) {
  Json right = interactiveCapture();
  right["shim_events"][0]["arguments"] = {"log"};
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["shim"], "changed");
  EXPECT_EQ(result["first_divergence"]["dimension"], "shim");
  EXPECT_EQ(result["first_divergence"]["index"], 0);
  EXPECT_EQ(result["first_divergence"]["right"]["arguments"].dump(), R"(["log"])");
}

TEST(CompareContent, AProcessChangeIsFoundAtItsNodeInCanonicalOrder) {
  Json right = reorderedSiblings();
  right["process_samples"][1]["command"] = "wc -c";
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["process"], "changed");
  // Pre-order: sh, cat, wc (siblings ordered by their history).
  EXPECT_EQ(result["first_divergence"].dump(),
            R"({"status":"found","dimension":"process","index":2,"left_at_ms":100,)"
            R"("right_at_ms":100,"left":{"depth":1,"history":[{"command":"wc -l",)"
            R"("leads_group":false,"leads_session":false},{"command":"","leads_group":false,)"
            R"("leads_session":false}]},"right":{"depth":1,"history":[{"command":"wc -c",)"
            R"("leads_group":false,"leads_session":false},{"command":"","leads_group":false,)"
            R"("leads_session":false}]}})");
}

TEST(CompareContent, WhoStartedWhomIsPartOfTheTreeShape) {
  Json right = interactiveCapture();
  right["process_samples"][2]["parent_pid"] = 3;  // wc started by cat instead of sh
  Json first = compare(interactiveCapture(), right)["first_divergence"];
  EXPECT_EQ(first["dimension"], "process");
  EXPECT_EQ(first["index"], 2);  // sh and cat keep their place; wc moves one level down
  EXPECT_EQ(first["right"]["depth"], 2);

  right = interactiveCapture();
  right["process_samples"][2]["process_group_id"] = 4;  // wc in a group of its own
  first = compare(interactiveCapture(), right)["first_divergence"];
  EXPECT_EQ(first["index"], 2);
  EXPECT_EQ(first["right"]["history"][0]["leads_group"], true);
}

TEST(CompareContent, AProcessParentCycleStillYieldsATree) {
  Json left = minimalCapture();
  left["process_samples"] = {sample(0, 1, 2, "a", 1), sample(0, 2, 1, "b", 1)};
  Json result = compare(left, left);
  EXPECT_EQ(result["process"], "unchanged");
  Json right = minimalCapture();
  right["process_samples"] = Json::array({sample(0, 1, 2, "a", 1)});
  EXPECT_EQ(compare(left, right)["process"], "changed");
}

// --- residual unknowns, normalization, truncation ------------------------------------------------

TEST(CompareContent, ALostHelperKeepsItsDimensionUnknown) {
  Json right = interactiveCapture();
  right["residual_unknowns"].push_back(
      {{"scope", "terminal"}, {"reason", "The pty helper was killed by signal 9."}});
  Json result = compare(interactiveCapture(), right);
  EXPECT_EQ(result["terminal"], "unknown");
  EXPECT_EQ(result["status"], "unknown");
  EXPECT_EQ(result["first_divergence"]["status"], "unknown");
  EXPECT_EQ(result["limitations"].back(), "The pty helper was killed by signal 9.");

  right["truncated"] = true;  // as A13 captures are
  EXPECT_EQ(compare(interactiveCapture(), right)["status"], "truncated");
}

TEST(CompareContent, TimingBeyondToleranceMakesTheStatusChangedDespiteAResidual) {
  // A7: "a timing deviation beyond tolerance makes the overall status `changed`". The dimension
  // says so too, so that `status` stays derivable from the dimensions (B §9.3).
  Json left = interactiveCapture();
  left["residual_unknowns"].push_back({{"scope", "shim"}, {"reason", "shim helper stopped"}});
  Json right = interactiveCapture();
  right["shim_events"][0]["at_ms"] = 170;
  Json result = compare(left, right);
  EXPECT_EQ(result["shim"], "changed");
  EXPECT_EQ(result["status"], "changed");
  EXPECT_EQ(result["timing"]["shim"]["exceeds_tolerance"], true);
  EXPECT_EQ(result["first_divergence"]["timing"], true);
  EXPECT_EQ(result["first_divergence"]["dimension"], "shim");
  EXPECT_EQ(result["limitations"].back(), "shim helper stopped");

  // Within the tolerance the residual keeps the dimension, and so the status, `unknown`.
  CompareOptions tolerant;
  tolerant.timingToleranceMs = 1000;
  Json within = compare(left, right, tolerant);
  EXPECT_EQ(within["shim"], "unknown");
  EXPECT_EQ(within["status"], "unknown");
  EXPECT_EQ(within["timing"]["shim"]["exceeds_tolerance"], false);

  // Different normalizations make the dimension unknown; a deviation beyond tolerance still
  // makes it, and the status, `changed`, while the other dimensions stay `unknown`.
  Json otherNormalization = right;
  otherNormalization["normalization"]["paths"] = false;
  Json differing = compare(interactiveCapture(), otherNormalization);
  EXPECT_EQ(differing["shim"], "changed");
  EXPECT_EQ(differing["terminal"], "unknown");
  EXPECT_EQ(differing["status"], "changed");

  // A content difference in an `unknown` dimension leaves it `unknown`, as in B.
  Json content = interactiveCapture();
  content["shim_events"][0]["arguments"] = Json::array({"other"});
  Json differentContent = compare(left, content);
  EXPECT_EQ(differentContent["shim"], "unknown");
  EXPECT_EQ(differentContent["status"], "unknown");

  // Baseline mode measures no timing: the residual decides, as B §9.3 says.
  EXPECT_EQ(compare(left, right, BASELINE)["shim"], "unknown");
}

TEST(CompareContent, SampledAndHostNetworkResidualsLeaveOnlyProcessUnknown) {
  Json left = interactiveCapture();
  Json right = reorderedSiblings();
  for (Json* capture : {&left, &right}) {
    (*capture)["residual_unknowns"] = {{{"scope", "process"}, {"reason", "sampled"}},
                                       {{"scope", "network"}, {"reason", "not isolated"}}};
  }
  Json result = compare(left, right);
  EXPECT_EQ(result["process"], "unknown");
  EXPECT_EQ(result["status"], "unknown");
  EXPECT_EQ(result["first_divergence"]["status"], "unknown");
  for (const char* dimension :
       {"terminal", "interaction", "exit", "filesystem", "protocol", "shim"}) {
    EXPECT_EQ(result[dimension], "unchanged") << dimension;
  }
}

TEST(CompareContent, DifferentNormalizationMakesEveryDimensionButExitUnknown) {
  Json left = interactiveCapture();
  left["normalization"]["paths"] = false;
  Json result = compare(left, interactiveCapture());
  EXPECT_EQ(result["status"], "unknown");
  EXPECT_EQ(result["exit"], "unchanged");
  EXPECT_EQ(result["terminal"], "unknown");
  EXPECT_EQ(result["limitations"].back(), "Capture normalization rules differ.");
  EXPECT_EQ(result["first_divergence"]["status"], "unknown");
}

TEST(CompareContent, ATruncatedCaptureShortCircuitsWithEmptyTiming) {
  Json left = interactiveCapture();
  left["truncated"] = true;
  EXPECT_EQ(compare(left, minimalCapture()).dump(),
            R"({"status":"truncated","terminal":"truncated","interaction":"truncated",)"
            R"("exit":"truncated","filesystem":"truncated","protocol":"truncated",)"
            R"("process":"truncated","shim":"truncated","first_divergence":{"status":"unknown",)"
            R"("reason":"At least one capture is truncated."},)"
            R"("limitations":["At least one capture is truncated."],"timing":{"tolerance_ms":50,)"
            R"("terminal":{"max_deviation_ms":null,"exceeds_tolerance":false},)"
            R"("interaction":{"max_deviation_ms":null,"exceeds_tolerance":false},)"
            R"("exit":{"max_deviation_ms":null,"exceeds_tolerance":false},)"
            R"("filesystem":{"max_deviation_ms":null,"exceeds_tolerance":false},)"
            R"("protocol":{"max_deviation_ms":null,"exceeds_tolerance":false},)"
            R"("process":{"max_deviation_ms":null,"exceeds_tolerance":false},)"
            R"("shim":{"max_deviation_ms":null,"exceeds_tolerance":false}}})");
}

// --- summary -------------------------------------------------------------------------------------

TEST(CompareSummary, ListsEachDimensionThenTheFirstDivergence) {
  Json right = interactiveCapture();
  right["shim_events"][0]["at_ms"] = 170;
  EXPECT_EQ(summariseComparison(compare(interactiveCapture(), right)),
            "comparison: changed\n"
            "  terminal     unchanged  (timing: max 0 ms)\n"
            "  interaction  unchanged  (timing: max 0 ms)\n"
            "  exit         unchanged  (timing: max 0 ms)\n"
            "  filesystem   unchanged  (timing: max 0 ms)\n"
            "  protocol     unchanged  (timing: max 0 ms)\n"
            "  process      unchanged  (timing: max 0 ms)\n"
            "  shim         changed    (timing: max 70 ms, beyond the tolerance of 50 ms)\n"
            "first divergence: shim at index 0 (left 100 ms, right 170 ms), timing off by 70 ms\n");
}

TEST(CompareSummary, NamesWhatATerminalIndexCounts) {
  Json right = interactiveCapture();
  right["frames"][2]["data"] = "ho\r\n$ ";
  std::string summary = summariseComparison(compare(interactiveCapture(), right));
  EXPECT_NE(summary.find("\nfirst divergence: terminal stream at index 12 (left 100 ms, right 100 "
                         "ms)\n"),
            std::string::npos)
      << summary;
}

TEST(CompareSummary, SaysWhyNoDivergenceCouldBeProven) {
  Json left = minimalCapture();
  left["residual_unknowns"].push_back({{"scope", "process"}, {"reason", "sampled"}});
  std::string summary = summariseComparison(compare(left, minimalCapture(), BASELINE));
  EXPECT_EQ(summary,
            "comparison: unknown\n"
            "  terminal     unchanged\n"
            "  interaction  unchanged\n"
            "  exit         unchanged\n"
            "  filesystem   unchanged\n"
            "  protocol     unchanged\n"
            "  process      unknown\n"
            "  shim         unchanged\n"
            "first divergence: unknown: Residual unknowns prevent proving that no divergence "
            "occurred.\n");
}

}  // namespace
}  // namespace rea::evidence
