#include "evidence/evidence-record.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "evidence/commitment.h"
#include "evidence/validate.h"
#include "tests/unit/capture-fixture.h"
#include "tests/test-support.h"

namespace rea::evidence {
namespace {

using rea::test::keysOf;

using testing::sampleCapture;

Json readFixture(const std::string& name) {
  std::ifstream in(std::string(REA_SOURCE_DIR) + "/tests/data/captures/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

Json sampleEvidence() {
  return buildCaptureEvidence(sampleCapture(), processEnvironment("linux", "x64"));
}

// A record changed on purpose, with its id recomputed so that only the change is judged.
Json reidentified(Json record) {
  record["evidence_id"] = computeEvidenceId(record);
  return record;
}

TEST(EvidenceRecord, BuildsCaptureEvidenceInReasOrder) {
  Capture capture = sampleCapture();
  Json record = sampleEvidence();
  EXPECT_EQ(keysOf(record),
            (std::vector<std::string>{"schema_version", "evidence_id", "subject", "provider",
                                      "predicate_type", "operation", "parameters", "raw_result",
                                      "normalized_result", "confidence", "authority", "environment",
                                      "limitations", "locations", "evidence_links"}));
  EXPECT_EQ(record["schema_version"], 2);
  EXPECT_TRUE(record["subject"].is_null());
  EXPECT_EQ(record["provider"].dump(),
            R"({"id":"rea-process","name":"REA deterministic process harness","version":"3"})");
  EXPECT_EQ(record["predicate_type"], "rea.process-capture/v4");
  EXPECT_EQ(record["operation"], "capture_process_scenario");
  EXPECT_EQ(record["parameters"].dump(),
            R"({"executable_name":"python3","argument_count":2,"event_count":2,)"
            R"("filesystem_root_count":1,"checkpoint_count":1,"command_shim_count":1,)"
            R"("normalization":{"paths":true,"pids":true,"ports":true,"time_bucket_ms":10,)"
            R"("patterns":[]}})");
  EXPECT_TRUE(record["raw_result"].is_null());
  EXPECT_EQ(record["normalized_result"].dump(), toJson(capture).dump());
  EXPECT_EQ(record["confidence"], "observed");
  EXPECT_EQ(record["authority"], "controlled-replay");
  EXPECT_EQ(record["environment"].dump(),
            R"({"id":"linux-x64","platform":"linux","architecture":"x64","isolation":"process"})");
  ASSERT_EQ(record["limitations"].size(), 3u);
  EXPECT_EQ(record["limitations"][0], ARTIFACT_IDENTITY_LIMITATION);
  EXPECT_EQ(record["limitations"][1], capture.limitations[0]);
  EXPECT_EQ(record["locations"], Json::array());
  EXPECT_EQ(record["evidence_links"], Json::array());
  EXPECT_EQ(record["evidence_id"].get<std::string>().substr(0, 3), "ev_");
  EXPECT_EQ(record["evidence_id"], computeEvidenceId(record));
}

TEST(EvidenceRecord, MovingTheCaptureInBuildsTheSameRecord) {
  // The capture command moves its capture in (frames are not copied): same bytes, same id.
  Capture capture = sampleCapture();
  for (int i = 0; i < 50; ++i) {
    TerminalFrame frame = capture.frames.back();
    frame.sequence = static_cast<int64_t>(capture.frames.size());
    capture.frames.push_back(frame);
  }
  testing::commitAll(capture);
  auto environment = processEnvironment("linux", "x64");
  Json copied = buildCaptureEvidence(capture, environment);
  EXPECT_EQ(toJson(Capture(capture)).dump(), toJson(capture).dump());
  Capture moved = capture;
  Json built = buildCaptureEvidence(std::move(moved), environment);
  EXPECT_EQ(built.dump(), copied.dump());
  EXPECT_EQ(built["evidence_id"], copied["evidence_id"]);
  EXPECT_TRUE(moved.frames.empty());  // the text went into the record
}

TEST(EvidenceRecord, IdIsTheHashOfEverythingButTheId) {
  Json record = sampleEvidence();
  Json projection = record;
  projection.erase("evidence_id");
  EXPECT_EQ(record["evidence_id"], "ev_" + commitment(projection));
  // Neither member order nor the id's own value matter.
  Json reordered = Json::object();
  for (auto it = record.rbegin(); it != record.rend(); ++it)
    reordered[it.key()] = it.value();
  reordered["evidence_id"] = "ev_x";
  EXPECT_EQ(computeEvidenceId(reordered), record["evidence_id"]);
}

TEST(EvidenceRecord, SubjectCountsOnlyByDigestFormatAndArchitecture) {
  Json record = sampleEvidence();
  record["subject"] = Json::parse(R"({"name":"tool","digest":{"sha256":")" + std::string(64, 'c') +
                                  R"("},"format":"elf","architecture":"x86_64",)"
                                  R"("local_path":"/opt/tool"})");
  std::string id = computeEvidenceId(record);
  Json moved = record;
  moved["subject"]["name"] = "renamed";
  moved["subject"]["local_path"] = "/elsewhere/renamed";
  EXPECT_EQ(computeEvidenceId(moved), id);
  Json other = record;
  other["subject"]["digest"]["sha256"] = std::string(64, 'd');
  EXPECT_NE(computeEvidenceId(other), id);
  record["evidence_id"] = id;
  EXPECT_TRUE(parseEvidence(record).ok()) << parseEvidence(record).detail;
}

TEST(EvidenceRecord, RefusesToWrapAnInvalidCapture) {
  Capture capture = sampleCapture();
  capture.filesystemCheckpoints.pop_back();
  try {
    buildCaptureEvidence(capture, processEnvironment("linux", "x64"));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "Invalid Process Capture v4: filesystem_checkpoints: last checkpoint must be "
              "after_settlement");
  }
}

TEST(EvidenceRecord, TakesParametersFromTheScenarioAsWritten) {
  Json parameters = captureEvidenceParameters(Json::parse(
      R"({"executable":"/usr/local/bin/","arguments":["a"],"events":[],"filesystem_roots":[],)"
      R"("checkpoints":[],"command_shims":[],"normalization":{"x":1}})"));
  EXPECT_EQ(parameters["executable_name"], "");
  EXPECT_EQ(parameters["argument_count"], 1);
  EXPECT_EQ(parameters["normalization"].dump(), R"({"x":1})");
  EXPECT_THROW(captureEvidenceParameters(Json::parse(R"({"executable":"/bin/sh"})")),
               std::invalid_argument);
}

TEST(EvidenceImport, ImportsItsOwnCaptureEvidence) {
  Json record = sampleEvidence();
  CaptureEvidenceImport imported = importCaptureEvidence(record);
  ASSERT_TRUE(imported.ok()) << imported.detail;
  EXPECT_EQ(imported.failure, EvidenceFailure::NONE);
  EXPECT_EQ(imported.evidenceId, record["evidence_id"]);
  EXPECT_EQ(*imported.capture, sampleCapture());
}

TEST(EvidenceImport, ATamperedFrameByteBreaksTheId) {
  Json record = sampleEvidence();
  std::string data = record["normalized_result"]["frames"][2]["data"];
  data[0] = 'R';
  record["normalized_result"]["frames"][2]["data"] = data;
  CaptureEvidenceImport imported = importCaptureEvidence(record);
  EXPECT_EQ(imported.failure, EvidenceFailure::ID_MISMATCH);
  EXPECT_NE(imported.detail.find("does not match the record"), std::string::npos);
  EXPECT_FALSE(imported.capture);
}

TEST(EvidenceImport, RejectsEvidenceV1) {
  for (const char* version : {"1", "3", "\"2\"", "null"}) {
    Json record = sampleEvidence();
    record["schema_version"] = Json::parse(version);
    CaptureEvidenceImport imported = importCaptureEvidence(reidentified(record));
    EXPECT_EQ(imported.failure, EvidenceFailure::ENVELOPE_VERSION) << version;
    EXPECT_NE(imported.detail.find("Evidence v1 is not accepted"), std::string::npos);
  }
  Json record = sampleEvidence();
  record.erase("schema_version");
  EXPECT_EQ(parseEvidence(record).failure, EvidenceFailure::ENVELOPE_VERSION);
}

TEST(EvidenceImport, ChecksTheEnvelopeStrictly) {
  Json record = sampleEvidence();
  record["signature"] = "trust me";
  record["confidence"] = "certain";
  record["provider"].erase("name");
  record["environment"]["isolation"] = "chroot";
  record["limitations"].push_back(3);
  record["locations"] = Json::parse(R"([{"kind":"file-offset","offset":-1},{"kind":"line"}])");
  record["evidence_links"] = Json::parse(R"(["ev_123"])");
  record.erase("raw_result");
  EvidenceParseResult parsed = parseEvidence(reidentified(record));
  EXPECT_EQ(parsed.failure, EvidenceFailure::ENVELOPE_SHAPE);
  std::vector<std::string> paths;
  for (const auto& issue : parsed.issues)
    paths.push_back(issue.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"signature", "provider.name", "raw_result",
                                             "confidence", "environment.isolation",
                                             "limitations[3]", "locations[0].offset",
                                             "locations[1].kind", "evidence_links[0]"}));
  EXPECT_EQ(parsed.issues[0].message, "is not an Evidence member");
  EXPECT_EQ(importCaptureEvidence(reidentified(record)).failure, EvidenceFailure::ENVELOPE_SHAPE);
  EXPECT_EQ(parseEvidence(Json::array()).failure, EvidenceFailure::ENVELOPE_SHAPE);
}

TEST(EvidenceImport, DropsUnknownNestedEnvelopeMembersBeforeCheckingTheId) {
  // The id covers the parsed record, so members a newer producer nests are ignored, as by REA.
  Json record = sampleEvidence();
  record["provider"]["homepage"] = "https://example.invalid";
  record["environment"]["kernel"] = "6.18";
  CaptureEvidenceImport imported = importCaptureEvidence(record);
  ASSERT_TRUE(imported.ok()) << imported.detail;
}

TEST(EvidenceImport, NamesRecordsOfOtherWorkflows) {
  struct Change {
    const char* pointer;
    const char* value;
  };
  for (Change change :
       {Change{"/operation", "\"compare_process_captures\""},
        Change{"/predicate_type", "\"rea.process-capture/v5\""},
        Change{"/provider/id", "\"rea-browser\""}, Change{"/provider/version", "\"4\""},
        Change{"/provider/version", "null"}}) {
    Json record = sampleEvidence();
    record[Json::json_pointer(change.pointer)] = Json::parse(change.value);
    CaptureEvidenceImport imported = importCaptureEvidence(reidentified(record));
    EXPECT_EQ(imported.failure, EvidenceFailure::NOT_CURRENT_WORKFLOW) << change.pointer;
    EXPECT_NE(imported.detail.find("not produced by the current capture workflow"),
              std::string::npos);
  }
  // Provider name, confidence and authority are not checked.
  Json record = sampleEvidence();
  record["provider"]["name"] = "Someone else";
  record["confidence"] = "inferred";
  record["authority"] = "historical-reference";
  EXPECT_TRUE(importCaptureEvidence(reidentified(record)).ok());
}

TEST(EvidenceImport, GivesTheLegacyMessageForV3Predicates) {
  Json record = sampleEvidence();
  record["predicate_type"] = "rea.process-capture/v3";
  CaptureEvidenceImport imported = importCaptureEvidence(reidentified(record));
  EXPECT_EQ(imported.failure, EvidenceFailure::LEGACY_CAPTURE);
  EXPECT_EQ(imported.detail, LEGACY_CAPTURE_MESSAGE);
}

TEST(EvidenceImport, ReportsAnInvalidCaptureInsideAValidEnvelope) {
  Json record = sampleEvidence();
  record["normalized_result"]["manifest"]["scenario"]["timeout_ms"] = 1000;
  record = reidentified(record);
  CaptureEvidenceImport imported = importCaptureEvidence(record);
  EXPECT_EQ(imported.failure, EvidenceFailure::CAPTURE_INVALID);
  EXPECT_EQ(imported.detail,
            "Invalid Process Capture v4: manifest.full_scenario_sha256: commitment does not "
            "match its canonical value");
  ASSERT_EQ(imported.issues.size(), 1u);
  EXPECT_EQ(imported.evidenceId, record["evidence_id"]);  // the envelope itself was fine

  record = sampleEvidence();
  record["normalized_result"]["schema_version"] = 3;
  imported = importCaptureEvidence(reidentified(record));
  EXPECT_EQ(imported.failure, EvidenceFailure::CAPTURE_INVALID);
  EXPECT_EQ(imported.detail, LEGACY_CAPTURE_MESSAGE);
}

TEST(EvidenceRecord, BuildsComparisonEvidence) {
  Json left = sampleEvidence();
  Json right = readFixture("rea-v4-minimal-evidence.json");
  Json comparison = Json::parse(R"({"status":"unknown","terminal":"unchanged",
      "interaction":"unchanged","exit":"changed","filesystem":"unchanged",
      "protocol":"unchanged","process":"unknown","shim":"unchanged",
      "first_divergence":{"status":"unknown","reason":"r"},"limitations":["a","b"]})");
  Json record = buildComparisonEvidence(left["evidence_id"], right["evidence_id"],
                                        left["normalized_result"]["normalization"],
                                        right["normalized_result"]["normalization"], comparison);
  EXPECT_EQ(record["predicate_type"], "rea.process-comparison/v3");
  EXPECT_EQ(record["operation"], "compare_process_captures");
  EXPECT_EQ(keysOf(record["parameters"]),
            (std::vector<std::string>{"left_evidence_id", "right_evidence_id", "left_normalization",
                                      "right_normalization"}));
  EXPECT_EQ(record["parameters"]["right_evidence_id"], right["evidence_id"]);
  EXPECT_EQ(record["normalized_result"], comparison);
  EXPECT_EQ(record["confidence"], "derived");
  EXPECT_EQ(record["authority"], "analyst-inference");
  EXPECT_TRUE(record["environment"].is_null());
  EXPECT_EQ(record["limitations"],
            Json::array({std::string(ARTIFACT_IDENTITY_LIMITATION), "a", "b"}));
  EXPECT_EQ(record["evidence_links"], Json::array({left["evidence_id"], right["evidence_id"]}));
  EvidenceParseResult parsed = parseEvidence(record);
  ASSERT_TRUE(parsed.ok()) << parsed.detail;
  EXPECT_EQ(parsed.evidenceId, record["evidence_id"]);
  // It is Evidence, but not capture Evidence.
  EXPECT_EQ(importCaptureEvidence(record).failure, EvidenceFailure::NOT_CURRENT_WORKFLOW);
  EXPECT_THROW(buildComparisonEvidence("ev_a", "ev_b", nullptr, nullptr, Json::object()),
               std::invalid_argument);
}

TEST(EvidenceFixtures, ReasMinimalV4EvidenceImports) {
  Json record = readFixture("rea-v4-minimal-evidence.json");
  CaptureEvidenceImport imported = importCaptureEvidence(record);
  ASSERT_TRUE(imported.ok()) << toString(imported.failure) << ": " << imported.detail;
  const Capture& capture = *imported.capture;
  EXPECT_EQ(capture.manifest.ptyBackend, "node-pty");
  EXPECT_EQ(capture.exit.signal, 0);
  EXPECT_FALSE(capture.manifest.processObservation);
  // Its commitments are the golden values of B §5.3 for the minimal scenario of §3.9.
  EXPECT_EQ(capture.manifest.fullScenarioSha256,
            "92e5c092fecb4d054d1804add25927e34eb9aa9c78d8a2142f46fcc23eb9fb92");
  EXPECT_EQ(capture.manifest.comparisonContractSha256,
            "db6820b359140dfca29f79210b485d4b69d38a71349330f530e6d969e050db74");
  EXPECT_EQ(capture.manifest.normalizationSha256,
            "60a27b2d1ee5aa73bf2e5cb2deaed2e9cc548f961ad2e3772c981828b643cc43");
  EXPECT_EQ(capture.manifest.replayPlanSha256,
            "8d63811296390d827ad34a30fac464e5a46b99e592ddc7698f9ed1a1f42695a5");
  EXPECT_EQ(capture.manifest.shimPlanSha256,
            "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945");
  EXPECT_EQ(record["parameters"]["executable_name"], "sh");
}

TEST(EvidenceFixtures, OurCaptureFixtureMatchesTodaysFormat) {
  // Guards the printed format: the checked-in capture is exactly what toJson writes now.
  Json fixture = readFixture("rea-own-capture.json");
  EXPECT_EQ(fixture.dump(), toJson(sampleCapture()).dump());
  CaptureParseResult imported = importCapture(fixture);
  ASSERT_TRUE(imported.ok()) << imported.failureMessage();
  EXPECT_EQ(imported.capture->manifest.processObservation, ProcessObservation::EXACT);
}

}  // namespace
}  // namespace rea::evidence
