#include "evidence/capture.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "evidence/commitment.h"
#include "tests/unit/capture-fixture.h"
#include "tests/test-support.h"

namespace rea::evidence {
namespace {

using rea::test::keysOf;

using testing::sampleCapture;

std::vector<std::string> paths(const std::vector<Issue>& issues) {
  std::vector<std::string> out;
  for (const auto& issue : issues)
    out.push_back(issue.path);
  return out;
}

TEST(Capture, RoundTripsThroughJson) {
  Capture original = sampleCapture();
  Json json = toJson(original);
  CaptureParseResult parsed = parseCapture(json);
  ASSERT_TRUE(parsed.ok()) << parsed.failureMessage();
  EXPECT_EQ(*parsed.capture, original);
  EXPECT_EQ(toJson(*parsed.capture).dump(), json.dump());
}

TEST(Capture, ParsingAnOwnedDocumentMovesTheFramesAndReadsTheSame) {
  Capture original = sampleCapture();
  ASSERT_FALSE(original.frames.empty());
  ASSERT_FALSE(original.renderedFrames.empty());
  Json json = toJson(original);
  Json owned = json;
  CaptureParseResult moved = parseCapture(std::move(owned));
  ASSERT_TRUE(moved.ok()) << moved.failureMessage();
  EXPECT_EQ(*moved.capture, original);
  EXPECT_EQ(*moved.capture, *parseCapture(json).capture);
  // The shape is still checked: a frame's data that is no string is found.
  Json broken = json;
  broken["frames"][0]["data"] = 7;
  CaptureParseResult refused = parseCapture(std::move(broken));
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(paths(refused.issues), std::vector<std::string>{"frames[0].data"});
}

TEST(Capture, EqualityNoticesEveryKindOfChange) {
  Capture a = sampleCapture();
  Capture b = a;
  EXPECT_EQ(a, b);
  b.frames[2].data += "x";
  EXPECT_FALSE(a == b);
  b = a;
  b.interactionEvents[0].automatic = std::nullopt;
  EXPECT_FALSE(a == b);
  b = a;
  (*b.manifest.scenario)["arguments"].push_back("-v");
  EXPECT_FALSE(a == b);
  b = a;
  b.filesystemCheckpoints[1].effects[0].after->mode = 33261;
  EXPECT_FALSE(a == b);
  b = a;
  b.manifest.processObservation = ProcessObservation::SAMPLED;
  EXPECT_FALSE(a == b);
}

TEST(Capture, JsonValuesCompareByCanonicalForm) {
  EXPECT_EQ(JsonBox(Json::parse(R"({"a":1,"b":[2.0]})")),
            JsonBox(Json::parse(R"({"b":[2],"a":1.0})")));
  EXPECT_FALSE(JsonBox(Json::parse(R"({"a":1})")) == JsonBox(Json::parse(R"({"a":"1"})")));
  JsonBox moved(Json::parse("[1]"));
  JsonBox target(std::move(moved));
  EXPECT_TRUE(moved->is_null());
  EXPECT_EQ(target->dump(), "[1]");
}

TEST(Capture, WritesMembersInSpecOrder) {
  Json json = toJson(sampleCapture());
  EXPECT_EQ(
      keysOf(json),
      (std::vector<std::string>{
          "schema_version", "manifest", "normalization", "frames", "rendered_frames",
          "interaction_events", "exit", "settlement", "process_samples", "filesystem_checkpoints",
          "shim_events", "protocol_events", "files_before", "files_after", "filesystem_effects",
          "truncated", "limitations", "residual_unknowns", "cleanup"}));
  EXPECT_EQ(json["schema_version"], 4);
  EXPECT_EQ(keysOf(json["manifest"]),
            (std::vector<std::string>{
                "rea_version", "provider_version", "platform", "architecture", "pty_backend",
                "started_at", "completed_at", "scenario", "comparison_contract", "shim_plan",
                "replay_plan", "full_scenario_sha256", "comparison_contract_sha256",
                "executable_sha256", "normalization_sha256", "shim_plan_sha256",
                "replay_plan_sha256", "process_observation"}));
  EXPECT_EQ(keysOf(json["rendered_frames"][0]),
            (std::vector<std::string>{"sequence", "at_ms", "columns", "rows", "cursor_x",
                                      "cursor_y", "active_buffer", "lines", "serialized_state"}));
  EXPECT_EQ(keysOf(json["process_samples"][0]),
            (std::vector<std::string>{"at_ms", "pid", "parent_pid", "command", "process_group_id",
                                      "session_id"}));
  EXPECT_EQ(keysOf(json["files_after"][1]),
            (std::vector<std::string>{"path", "type", "mode", "size", "sha256", "symlink_target"}));
  EXPECT_EQ(keysOf(json["shim_events"][0]),
            (std::vector<std::string>{"sequence", "at_ms", "command", "route_index", "arguments",
                                      "working_directory", "outcome"}));
  EXPECT_EQ(keysOf(json["protocol_events"][0]),
            (std::vector<std::string>{"sequence", "at_ms", "protocol", "direction", "method",
                                      "path", "data", "outcome"}));
  EXPECT_EQ(json["files_after"][1]["symlink_target"], "log.txt");
  EXPECT_TRUE(json["files_after"][1]["sha256"].is_null());
  EXPECT_EQ(json["exit"].dump(), R"({"code":0,"signal":null,"reason":"exited"})");
  EXPECT_EQ(json["cleanup"].dump(),
            R"({"owned_process_group":"verified","temporary_root":"removed"})");
  EXPECT_EQ(json["filesystem_checkpoints"][1]["effects"][1]["before"], nullptr);
}

TEST(Capture, OmitsOurOptionalAdditionsWhenAbsent) {
  Capture capture = sampleCapture();
  Json json = toJson(capture);
  EXPECT_EQ(json["manifest"]["process_observation"], "exact");
  EXPECT_EQ(json["interaction_events"][0]["automatic"], true);
  EXPECT_FALSE(json["interaction_events"][1].contains("automatic"));

  capture.manifest.processObservation = std::nullopt;
  capture.interactionEvents[0].automatic = std::nullopt;
  json = toJson(capture);
  EXPECT_FALSE(json["manifest"].contains("process_observation"));
  EXPECT_EQ(keysOf(json["interaction_events"][0]),
            (std::vector<std::string>{"sequence", "scheduled_at_ms", "dispatched_at_ms", "type",
                                      "data", "outcome"}));
  ASSERT_TRUE(parseCapture(json).ok());
  EXPECT_EQ(*parseCapture(json).capture, capture);
}

TEST(Capture, DropsUnknownMembersAtEveryLevel) {
  Capture capture = sampleCapture();
  Json json = toJson(capture);
  json["event_journal"] = Json::array();
  json["manifest"]["selected_executable_sha256"] = std::string(64, '0');
  json["normalization"]["future"] = true;
  json["normalization"]["patterns"] = Json::parse(R"([{"pattern":"a","replacement":"b","x":1}])");
  json["frames"][0]["raw_data"] = "raw";
  json["exit"]["core_dumped"] = false;
  json["filesystem_checkpoints"][1]["effects"][0]["after"]["inode"] = 12;
  json["residual_unknowns"][0]["detail"] = "more";
  json["cleanup"]["extra"] = "x";
  CaptureParseResult parsed = parseCapture(json);
  ASSERT_TRUE(parsed.ok()) << parsed.failureMessage();
  Json back = toJson(*parsed.capture);
  EXPECT_FALSE(back.contains("event_journal"));
  EXPECT_FALSE(back["manifest"].contains("selected_executable_sha256"));
  EXPECT_EQ(back["normalization"].dump(),
            R"({"paths":true,"pids":true,"ports":true,"time_bucket_ms":10,)"
            R"("patterns":[{"pattern":"a","replacement":"b"}]})");
  EXPECT_FALSE(back["frames"][0].contains("raw_data"));
  EXPECT_FALSE(back["exit"].contains("core_dumped"));
  EXPECT_FALSE(back["filesystem_checkpoints"][1]["effects"][0]["after"].contains("inode"));
  EXPECT_FALSE(back["residual_unknowns"][0].contains("detail"));
  EXPECT_FALSE(back["cleanup"].contains("extra"));
}

TEST(Capture, KeepsCommittedManifestValuesVerbatim) {
  Json json = toJson(sampleCapture());
  json["manifest"]["scenario"]["reactive"] = nullptr;
  json["manifest"]["replay_plan"]["machine"] = Json::parse(R"({"states":[1.5]})");
  json["manifest"]["shim_plan"].push_back("not even an object");
  CaptureParseResult parsed = parseCapture(json);
  ASSERT_TRUE(parsed.ok()) << parsed.failureMessage();
  EXPECT_EQ(commitment(*parsed.capture->manifest.scenario),
            commitment(json["manifest"]["scenario"]));
  EXPECT_EQ((*parsed.capture->manifest.replayPlan)["machine"]["states"][0], 1.5);
  EXPECT_EQ(parsed.capture->manifest.shimPlan->size(), 2u);
}

TEST(Capture, AcceptsReasOwnV4Form) {
  Json json = toJson(sampleCapture());
  json["manifest"]["pty_backend"] = "node-pty";
  json["manifest"]["rea_version"] = "1.4.0";
  json["manifest"].erase("process_observation");
  json["exit"] = Json::parse(R"({"code":0,"signal":0,"reason":"exited"})");
  json["residual_unknowns"] = Json::parse(R"([
    {"scope":"process","reason":"sampled"}, {"scope":"terminal","reason":"t"},
    {"scope":"interaction","reason":"i"}, {"scope":"exit","reason":"e"},
    {"scope":"filesystem","reason":"f"}, {"scope":"protocol","reason":"p"},
    {"scope":"shim","reason":"s"}, {"scope":"cleanup","reason":"c"},
    {"scope":"network","reason":"n"}])");
  CaptureParseResult parsed = parseCapture(json);
  ASSERT_TRUE(parsed.ok()) << parsed.failureMessage();
  EXPECT_EQ(parsed.capture->exit.code, 0);
  EXPECT_EQ(parsed.capture->exit.signal, 0);
  EXPECT_EQ(parsed.capture->manifest.ptyBackend, "node-pty");
  EXPECT_FALSE(parsed.capture->manifest.processObservation);
  EXPECT_EQ(parsed.capture->residualUnknowns.size(), 9u);
  EXPECT_EQ(parsed.capture->residualUnknowns[8].scope, ResidualScope::NETWORK);
  json["exit"] = Json::parse(R"({"code":0,"signal":15,"reason":"exited"})");
  EXPECT_TRUE(parseCapture(json).ok());
}

TEST(Capture, AcceptsAnyNonEmptyPtyBackend) {
  Json json = toJson(sampleCapture());
  json["manifest"]["pty_backend"] = "some-other-backend";
  EXPECT_TRUE(parseCapture(json).ok());
  json["manifest"]["pty_backend"] = "";
  CaptureParseResult parsed = parseCapture(json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.failureMessage(),
            "Invalid Process Capture v4: manifest.pty_backend: must be a non-empty string");
}

TEST(Capture, RefusesV3WithTheLegacyMessageAlone) {
  Json json = toJson(sampleCapture());
  json["schema_version"] = 3;
  json.erase("manifest");
  CaptureParseResult parsed = parseCapture(json);
  EXPECT_FALSE(parsed.ok());
  EXPECT_TRUE(parsed.legacy);
  EXPECT_TRUE(parsed.issues.empty());
  EXPECT_EQ(parsed.failureMessage(), LEGACY_CAPTURE_MESSAGE);
  EXPECT_NE(parsed.failureMessage().find("Process Capture v3 is unsupported"), std::string::npos);
}

TEST(Capture, RefusesEveryOtherVersionWithTheLegacyMessage) {
  for (const char* version : {"5", "\"4\"", "4.5", "null", "2"}) {
    Json json = toJson(sampleCapture());
    json["schema_version"] = Json::parse(version);
    CaptureParseResult parsed = parseCapture(json);
    EXPECT_FALSE(parsed.ok()) << version;
    EXPECT_TRUE(parsed.legacy) << version;
    EXPECT_EQ(parsed.failureMessage(), LEGACY_CAPTURE_MESSAGE) << version;
    ASSERT_EQ(parsed.issues.size(), 1u);
    EXPECT_EQ(parsed.issues[0].path, "schema_version");
  }
  Json json = toJson(sampleCapture());
  json.erase("schema_version");
  EXPECT_TRUE(parseCapture(json).legacy);
  json["schema_version"] = 4.0;  // the number 4, however it is written
  EXPECT_TRUE(parseCapture(json).ok());
}

TEST(Capture, ReportsEveryShapeErrorWithItsPath) {
  Json json = toJson(sampleCapture());
  json["frames"][3]["at_ms"] = -1;
  json["frames"][1]["sequence"] = 1.5;
  json["rendered_frames"][0]["columns"] = 0;
  json["rendered_frames"][1]["active_buffer"] = "scrollback";
  json["interaction_events"][2]["type"] = "paste";
  json["interaction_events"][0]["automatic"] = "yes";
  json["exit"]["code"] = "0";
  json["settlement"].erase("elapsed_ms");
  json["process_samples"][0]["pid"] = 0;
  json["process_samples"][0]["parent_pid"] = -1;
  json["process_samples"][1]["process_group_id"] = 0;
  json["process_samples"][1]["session_id"] = nullptr;  // allowed
  json["files_after"][2]["sha256"] = std::string(64, 'A');
  json["filesystem_effects"][1]["status"] = "renamed";
  json["shim_events"][0]["route_index"] = -1;
  json["protocol_events"][1]["direction"] = "inbound";
  json["residual_unknowns"][0]["scope"] = "replay_transition";
  json["cleanup"]["temporary_root"] = "kept";
  json["truncated"] = "false";
  json["manifest"]["started_at"] = "2026-07-14T09:30:00+00:00";
  json["manifest"]["full_scenario_sha256"] = "abc";
  json["manifest"]["process_observation"] = "guessed";
  json["limitations"][1] = 7;

  CaptureParseResult parsed = parseCapture(json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_FALSE(parsed.legacy);
  EXPECT_EQ(paths(parsed.issues), (std::vector<std::string>{"manifest.started_at",
                                                            "manifest.full_scenario_sha256",
                                                            "manifest.process_observation",
                                                            "frames[1].sequence",
                                                            "frames[3].at_ms",
                                                            "rendered_frames[0].columns",
                                                            "rendered_frames[1].active_buffer",
                                                            "interaction_events[0].automatic",
                                                            "interaction_events[2].type",
                                                            "exit.code",
                                                            "settlement.elapsed_ms",
                                                            "process_samples[0].pid",
                                                            "process_samples[0].parent_pid",
                                                            "process_samples[1].process_group_id",
                                                            "shim_events[0].route_index",
                                                            "protocol_events[1].direction",
                                                            "files_after[2].sha256",
                                                            "filesystem_effects[1].status",
                                                            "truncated",
                                                            "limitations[1]",
                                                            "residual_unknowns[0].scope",
                                                            "cleanup.temporary_root"}));
  std::string message = parsed.failureMessage();
  EXPECT_EQ(
      message.rfind("Invalid Process Capture v4: manifest.started_at: must be an ISO-8601", 0), 0u);
  EXPECT_NE(message.find("; frames[3].at_ms: must be a non-negative integer;"), std::string::npos);
  EXPECT_NE(message.find("; frames[1].sequence: must be a non-negative integer;"),
            std::string::npos);
  EXPECT_NE(message.find("rendered_frames[0].columns: must be a positive integer"),
            std::string::npos);
  EXPECT_NE(message.find("process_samples[1].process_group_id: must be a positive integer or null"),
            std::string::npos);
  EXPECT_NE(
      message.find("rendered_frames[1].active_buffer: must be one of \"normal\", \"alternate\""),
      std::string::npos);
  EXPECT_NE(message.find("settlement.elapsed_ms: is required"), std::string::npos);
  EXPECT_NE(message.find("files_after[2].sha256: must be 64 lowercase hexadecimal digits or null"),
            std::string::npos);
  EXPECT_NE(message.find("cleanup.temporary_root: must be \"removed\""), std::string::npos);
}

TEST(Capture, ChecksNestedContainersAndNormalizationBounds) {
  Json json = toJson(sampleCapture());
  json["frames"][2] = "chunk";
  json["rendered_frames"][0]["lines"][3] = nullptr;
  json["filesystem_checkpoints"][1]["files"] = Json::object();
  json["filesystem_checkpoints"][2]["effects"][0]["after"] = Json::array();
  json["normalization"]["time_bucket_ms"] = 0;
  json["normalization"]["patterns"] =
      Json::parse(R"([{"pattern":"x","replacement":")" + std::string(101, 'r') + R"("}])");
  json["manifest"]["scenario"] = Json::array();
  json["shim_events"] = Json::object();
  CaptureParseResult parsed = parseCapture(json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(
      paths(parsed.issues),
      (std::vector<std::string>{"manifest.scenario", "normalization.time_bucket_ms",
                                "normalization.patterns[0].replacement", "frames[2]",
                                "rendered_frames[0].lines[3]", "filesystem_checkpoints[1].files",
                                "filesystem_checkpoints[2].effects[0].after", "shim_events"}));
  EXPECT_EQ(parsed.issues[1].message, "must be an integer from 1 to 60000");
  EXPECT_EQ(parsed.issues[2].message, "must be a string of 0 to 100 characters");
  EXPECT_EQ(parsed.issues[6].message, "must be an object or null");
}

TEST(Capture, TreatsIntegersAsJavaScriptDoes) {
  Json json = toJson(sampleCapture());
  json["frames"][0]["at_ms"] = 10.0;  // 1.0 parses as the integer 1
  json["settlement"]["elapsed_ms"] = 9007199254740991;
  ASSERT_TRUE(parseCapture(json).ok());
  EXPECT_EQ(parseCapture(json).capture->frames[0].atMs, 10);
  json["settlement"]["elapsed_ms"] = 9007199254740992;  // not a safe integer
  CaptureParseResult parsed = parseCapture(json);
  ASSERT_EQ(parsed.issues.size(), 1u);
  EXPECT_EQ(parsed.issues[0].path, "settlement.elapsed_ms");
  json["settlement"]["elapsed_ms"] = 1e300;
  EXPECT_FALSE(parseCapture(json).ok());
}

TEST(Capture, RejectsWhatIsNoObject) {
  for (const char* text : {"[]", "null", "4", "\"capture\""}) {
    CaptureParseResult parsed = parseCapture(Json::parse(text));
    EXPECT_FALSE(parsed.ok());
    EXPECT_FALSE(parsed.legacy);
    EXPECT_EQ(parsed.failureMessage(), "Invalid Process Capture v4: (root): must be an object");
  }
}

}  // namespace
}  // namespace rea::evidence
