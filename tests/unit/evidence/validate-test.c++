#include "evidence/validate.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "evidence/commitment.h"
#include "tests/unit/capture-fixture.h"

namespace rea::evidence {
namespace {

using testing::commitAll;
using testing::sampleCapture;

std::vector<std::string> paths(const std::vector<Issue>& issues) {
  std::vector<std::string> out;
  for (const auto& issue : issues)
    out.push_back(issue.path);
  return out;
}

// Exactly one issue, at `path`, whose message starts with `message`.
void expectSingleIssue(const Capture& capture, const std::string& path,
                       const std::string& message) {
  auto issues = validateCapture(capture);
  ASSERT_EQ(issues.size(), 1u) << formatIssues(issues);
  EXPECT_EQ(issues[0].path, path);
  EXPECT_EQ(issues[0].message.substr(0, message.size()), message) << issues[0].message;
}

TEST(ValidateCapture, AcceptsTheSampleCapture) {
  EXPECT_EQ(formatIssues(validateCapture(sampleCapture())), "");
}

TEST(ValidateCapture, Rule1ExecutableHashMustMatchTheScenario) {
  Capture c = sampleCapture();
  c.manifest.executableSha256 = std::string(64, 'f');
  expectSingleIssue(c, "manifest.executable_sha256",
                    "executable commitment does not match the scenario projection");
  c = sampleCapture();
  (*c.manifest.scenario)["executable_sha256"] = nullptr;  // "computed without a hash"
  c.manifest.fullScenarioSha256 = commitment(*c.manifest.scenario);
  expectSingleIssue(c, "manifest.executable_sha256", "executable commitment");
}

TEST(ValidateCapture, Rule2RecomputesEveryCommitment) {
  const char* fields[] = {"manifest.full_scenario_sha256", "manifest.comparison_contract_sha256",
                          "manifest.normalization_sha256", "manifest.shim_plan_sha256",
                          "manifest.replay_plan_sha256"};
  for (int i = 0; i < 5; ++i) {
    Capture c = sampleCapture();
    std::string* hashes[] = {&c.manifest.fullScenarioSha256, &c.manifest.comparisonContractSha256,
                             &c.manifest.normalizationSha256, &c.manifest.shimPlanSha256,
                             &c.manifest.replayPlanSha256};
    *hashes[i] = commitment(Json::parse("{}"));
    expectSingleIssue(c, fields[i], "commitment does not match its canonical value");
  }
}

TEST(ValidateCapture, Rule2UsesTheEmbeddedValuesAndTheTopLevelNormalization) {
  // Changing an embedded value without re-committing breaks its hash ...
  Capture c = sampleCapture();
  (*c.manifest.replayPlan)["http"][0]["status"] = 404;
  expectSingleIssue(c, "manifest.replay_plan_sha256", "commitment");
  // ... the top-level normalization is what normalization_sha256 covers ...
  c = sampleCapture();
  (*c.normalization)["time_bucket_ms"] = 20;
  expectSingleIssue(c, "manifest.normalization_sha256", "commitment");
  // ... and nothing ties it (or the contract) to the scenario projection.
  c = sampleCapture();
  (*c.normalization)["time_bucket_ms"] = 20;
  (*c.manifest.comparisonContract)["settle_ms"] = 5;
  commitAll(c);
  EXPECT_TRUE(validateCapture(c).empty());
  // Key order and number spelling do not matter: the hash is over canonical JSON.
  c = sampleCapture();
  c.manifest.shimPlan = Json::parse(
      R"([{"routes":[{"termination":{"type":"exit","code":0.0},"outputs":[{"stream":"stdout",)"
      R"("data":"codex 1.2.3\n","at_ms":0}],"max_calls":1,"arguments":["--version"]}],)"
      R"("name":"codex"}])");
  EXPECT_TRUE(validateCapture(c).empty());
}

TEST(ValidateCapture, CommitManifestProducesWhatRule2Checks) {
  Capture c = sampleCapture();
  c.manifest.fullScenarioSha256.clear();
  c.manifest.comparisonContractSha256.clear();
  c.manifest.normalizationSha256.clear();
  c.manifest.shimPlanSha256.clear();
  c.manifest.replayPlanSha256.clear();
  EXPECT_EQ(validateCapture(c).size(), 5u);
  commitManifest(c);
  EXPECT_TRUE(validateCapture(c).empty());
  EXPECT_EQ(c.manifest.normalizationSha256,
            "60a27b2d1ee5aa73bf2e5cb2deaed2e9cc548f961ad2e3772c981828b643cc43");
}

TEST(ValidateCapture, Rule3CompletionMayNotPrecedeStart) {
  Capture c = sampleCapture();
  c.manifest.completedAt = "2026-07-14T09:29:59.999Z";
  expectSingleIssue(c, "manifest.completed_at", "completion precedes start");
  c.manifest.completedAt = c.manifest.startedAt;
  EXPECT_TRUE(validateCapture(c).empty());
  // Compared in milliseconds, like Date.parse: the same millisecond is not earlier.
  c.manifest.startedAt = "2026-07-14T09:30:00.1259Z";
  c.manifest.completedAt = "2026-07-14T09:30:00.1251Z";
  EXPECT_TRUE(validateCapture(c).empty());
  c.manifest.completedAt = "not a time";
  expectSingleIssue(c, "manifest.completed_at", "completion precedes start");
}

TEST(ValidateCapture, Rule4SequencesAreContiguousFromZero) {
  Capture c = sampleCapture();
  c.frames[2].sequence = 3;
  c.frames[3].sequence = 4;
  expectSingleIssue(c, "frames",
                    "sequence values must be contiguous from 0 (element 2 has sequence 3)");
  c = sampleCapture();
  c.renderedFrames[0].sequence = 1;
  expectSingleIssue(c, "rendered_frames", "sequence values must be contiguous");
  c = sampleCapture();
  c.interactionEvents.erase(c.interactionEvents.begin());
  expectSingleIssue(c, "interaction_events", "sequence values must be contiguous");
  c = sampleCapture();
  c.shimEvents[0].sequence = 7;
  expectSingleIssue(c, "shim_events", "sequence values must be contiguous");
  c = sampleCapture();
  std::swap(c.protocolEvents[0].sequence, c.protocolEvents[1].sequence);
  expectSingleIssue(c, "protocol_events", "sequence values must be contiguous");
}

TEST(ValidateCapture, Rule5TimestampsNeverDecrease) {
  Capture c = sampleCapture();
  c.frames[3].atMs = 35;
  expectSingleIssue(c, "frames",
                    "timestamps must be non-decreasing (element 3 at 35 ms follows 40 ms)");
  const char* names[] = {"rendered_frames", "process_samples", "filesystem_checkpoints",
                         "shim_events", "protocol_events"};
  for (int i = 0; i < 5; ++i) {
    c = sampleCapture();
    switch (i) {
      case 0:
        c.renderedFrames[0].atMs = 300;
        break;
      case 1:
        c.processSamples[0].atMs = 60;
        break;
      case 2:
        c.filesystemCheckpoints[1].atMs = 200;
        break;
      case 3: {
        ShimEvent earlier = c.shimEvents[0];
        earlier.sequence = 1;
        earlier.atMs = 51;
        earlier.outcome = ShimOutcome::UNMATCHED;
        earlier.routeIndex = std::nullopt;
        c.shimEvents.push_back(earlier);
        break;
      }
      default:
        c.protocolEvents[1].atMs = 59;
        break;
    }
    expectSingleIssue(c, names[i], "timestamps must be non-decreasing");
  }
  // Interaction events are in dispatch order and are not time-checked.
  c = sampleCapture();
  c.interactionEvents[2].scheduledAtMs = 0;
  c.interactionEvents[2].dispatchedAtMs = 0;
  EXPECT_TRUE(validateCapture(c).empty());
}

TEST(ValidateCapture, Rule6CheckpointsRunFromBeforeToAfterSettlementWithUniqueNames) {
  Capture c = sampleCapture();
  c.filesystemCheckpoints[1].name = "before";
  expectSingleIssue(c, "filesystem_checkpoints",
                    "checkpoint names must be unique (\"before\" repeats)");
  c = sampleCapture();
  c.filesystemCheckpoints.erase(c.filesystemCheckpoints.begin());
  expectSingleIssue(c, "filesystem_checkpoints", "first checkpoint must be before");
  c = sampleCapture();
  c.filesystemCheckpoints.pop_back();
  expectSingleIssue(c, "filesystem_checkpoints", "last checkpoint must be after_settlement");
  c = sampleCapture();
  c.filesystemCheckpoints.clear();
  auto issues = validateCapture(c);
  ASSERT_EQ(issues.size(), 2u);
  EXPECT_EQ(issues[0].message, "first checkpoint must be before");
  EXPECT_EQ(issues[1].message, "last checkpoint must be after_settlement");
}

TEST(ValidateCapture, Rule7CheckpointTruncationPropagates) {
  Capture c = sampleCapture();
  c.filesystemCheckpoints[1].truncated = true;
  expectSingleIssue(c, "truncated", "checkpoint truncation must propagate to the capture");
  c.truncated = true;
  EXPECT_TRUE(validateCapture(c).empty());
}

TEST(ValidateCapture, Rule8DeadlineExitsHaveNoCode) {
  Capture c = sampleCapture();
  c.exit = Exit{0, 9, ExitReason::TIMEOUT};
  c.settlement.state = SettlementState::ALIVE_AT_DEADLINE;
  c.settlement.cleanupOutcome = CleanupOutcome::CLEANED;
  expectSingleIssue(c, "exit", "deadline termination cannot declare a normal exit code");
  c.exit.code = std::nullopt;
  EXPECT_TRUE(validateCapture(c).empty());
  // REA's forms of a normal exit and of a signal death are fine.
  c = sampleCapture();
  c.exit = Exit{0, 0, ExitReason::EXITED};
  EXPECT_TRUE(validateCapture(c).empty());
  c.exit = Exit{0, 15, ExitReason::EXITED};
  EXPECT_TRUE(validateCapture(c).empty());
}

TEST(ValidateCapture, Rule9SettlementAndCleanupAgree) {
  Capture c = sampleCapture();
  c.settlement.cleanupOutcome = CleanupOutcome::CLEANED;
  expectSingleIssue(c, "settlement.cleanup_outcome", "quiesced settlement cannot require cleanup");
  c = sampleCapture();
  c.settlement.state = SettlementState::UNVERIFIABLE;
  expectSingleIssue(c, "settlement.cleanup_outcome", "non-quiesced settlement must report cleanup");
  c.settlement.cleanupOutcome = CleanupOutcome::FAILED;
  EXPECT_TRUE(validateCapture(c).empty());
}

TEST(ValidateCapture, Rule10ShimEventsReferenceDeclaredRoutes) {
  Capture c = sampleCapture();
  ShimEvent unmatched = c.shimEvents[0];
  unmatched.sequence = 1;
  unmatched.atMs = 70;
  unmatched.outcome = ShimOutcome::UNMATCHED;
  unmatched.routeIndex = 0;  // must be null
  ShimEvent exhausted = unmatched;
  exhausted.sequence = 2;
  exhausted.outcome = ShimOutcome::EXHAUSTED;
  exhausted.routeIndex = 1;  // codex has one route
  ShimEvent stranger = exhausted;
  stranger.sequence = 3;
  stranger.command = "git";
  stranger.routeIndex = 0;
  ShimEvent fine = unmatched;
  fine.sequence = 4;
  fine.routeIndex = std::nullopt;
  c.shimEvents.insert(c.shimEvents.end(), {unmatched, exhausted, stranger, fine});
  auto issues = validateCapture(c);
  ASSERT_EQ(paths(issues), (std::vector<std::string>(3, "shim_events")));
  EXPECT_EQ(issues[0].message,
            "shim event has no declared route (element 1, unmatched \"codex\" route_index 0)");
  EXPECT_EQ(issues[1].message,
            "shim event has no declared route (element 2, exhausted \"codex\" route_index 1)");
  EXPECT_EQ(issues[2].message,
            "shim event has no declared route (element 3, exhausted \"git\" route_index 0)");
}

TEST(ValidateCapture, Rule10IgnoresPlanEntriesThatDeclareNothing) {
  Capture c = sampleCapture();
  c.manifest.shimPlan = Json::parse(R"([{"name":"codex"}, 5, {"name":1,"routes":[{}]}])");
  commitAll(c);
  expectSingleIssue(c, "shim_events", "shim event has no declared route");
}

TEST(ValidateCapture, Rule11MatchedEventsStayWithinMaxCalls) {
  Capture c = sampleCapture();
  ShimEvent again = c.shimEvents[0];
  again.sequence = 1;
  again.atMs = 80;
  c.shimEvents.push_back(again);
  expectSingleIssue(c, "shim_events",
                    "matched shim events exceed the declared route max_calls (\"codex\" route 0: "
                    "2 matched)");
  (*c.manifest.shimPlan)[0]["routes"][0]["max_calls"] = 2;
  commitAll(c);
  EXPECT_TRUE(validateCapture(c).empty());
  // Exhausted calls do not count; a route without max_calls allows none.
  c = sampleCapture();
  (*c.manifest.shimPlan)[0]["routes"][0].erase("max_calls");
  commitAll(c);
  expectSingleIssue(c, "shim_events", "matched shim events exceed the declared route max_calls");
  c.shimEvents[0].outcome = ShimOutcome::EXHAUSTED;
  EXPECT_TRUE(validateCapture(c).empty());
}

TEST(ValidateCapture, Rule12MatchedHttpRequestsHaveARoute) {
  Capture c = sampleCapture();
  c.protocolEvents[0].path = "/v1/other";
  c.protocolEvents[1].path = "/v1/other";  // a response is not checked
  expectSingleIssue(c, "protocol_events",
                    "matched HTTP event has no declared replay route (element 0, \"GET\" "
                    "\"/v1/other\")");
  c = sampleCapture();
  c.protocolEvents[0].method = "get";  // compared case-sensitively
  expectSingleIssue(c, "protocol_events", "matched HTTP event has no declared replay route");
  c.protocolEvents[0].outcome = ProtocolOutcome::UNMATCHED;
  EXPECT_TRUE(validateCapture(c).empty());
  c = sampleCapture();
  c.protocolEvents[0].protocol = ProtocolKind::WEBSOCKET;
  c.protocolEvents[0].path = "/ws";
  EXPECT_TRUE(validateCapture(c).empty());
  c = sampleCapture();
  c.manifest.replayPlan = Json::parse(R"({"http": {}})");
  commitAll(c);
  expectSingleIssue(c, "protocol_events", "matched HTTP event has no declared replay route");
}

TEST(ValidateCapture, CollectsEveryIssueInRuleOrder) {
  Capture c = sampleCapture();
  c.protocolEvents[0].path = "/nowhere";                  // 12
  c.shimEvents[0].routeIndex = 4;                         // 10
  c.settlement.cleanupOutcome = CleanupOutcome::FAILED;   // 9
  c.exit.reason = ExitReason::IDLE_TIMEOUT;               // 8 (code stays 0)
  c.filesystemCheckpoints[0].truncated = true;            // 7
  c.filesystemCheckpoints.pop_back();                     // 6
  c.processSamples[1].atMs = 0;                           // 5 (no change: 0 after 0)
  c.frames[0].atMs = 50;                                  // 5
  c.renderedFrames[1].sequence = 5;                       // 4
  c.manifest.completedAt = "2026-07-14T09:29:00Z";        // 3
  c.manifest.normalizationSha256 = std::string(64, '1');  // 2
  c.manifest.executableSha256 = std::string(64, '2');     // 1
  auto issues = validateCapture(c);
  EXPECT_EQ(paths(issues), (std::vector<std::string>{
                               "manifest.executable_sha256", "manifest.normalization_sha256",
                               "manifest.completed_at", "rendered_frames", "frames",
                               "filesystem_checkpoints", "truncated", "exit",
                               "settlement.cleanup_outcome", "shim_events", "protocol_events"}));
}

TEST(ImportCapture, ChecksShapeThenSemanticsAndFormatsTheFailure) {
  Capture c = sampleCapture();
  Json json = toJson(c);
  CaptureParseResult imported = importCapture(json);
  ASSERT_TRUE(imported.ok()) << imported.failureMessage();
  EXPECT_EQ(*imported.capture, c);

  json["frames"][1]["sequence"] = 9;
  json["manifest"]["comparison_contract"]["timeout_ms"] = 1;
  imported = importCapture(json);
  EXPECT_FALSE(imported.ok());
  EXPECT_EQ(imported.failureMessage(),
            "Invalid Process Capture v4: manifest.comparison_contract_sha256: commitment does "
            "not match its canonical value; frames: sequence values must be contiguous from 0 "
            "(element 1 has sequence 9)");
  EXPECT_EQ(invalidCaptureMessage(imported.issues), imported.failureMessage());

  // A shape failure stops before the semantic rules.
  json["frames"][1]["sequence"] = -9;
  imported = importCapture(json);
  ASSERT_EQ(imported.issues.size(), 1u);
  EXPECT_EQ(imported.issues[0].path, "frames[1].sequence");

  json["schema_version"] = 3;
  EXPECT_EQ(importCapture(json).failureMessage(), LEGACY_CAPTURE_MESSAGE);
}

TEST(ImportCapture, TamperedFrameBytesStillValidate) {
  // Frames are not committed by the manifest: tampering is caught by the Evidence id instead
  // (see evidence-record-test).
  Json json = toJson(sampleCapture());
  json["frames"][0]["data"] = "Starting evil app\r\n";
  EXPECT_TRUE(importCapture(json).ok());
}

}  // namespace
}  // namespace rea::evidence
