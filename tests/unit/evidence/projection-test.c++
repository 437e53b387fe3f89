// Projections and their commitments: the golden hashes of SPEC B §5.3, secret redaction, and
// A3 (sensitive input data never reaches either projection).

#include "evidence/projection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "evidence/canonical-json.h"
#include "evidence/commitment.h"
#include "evidence/scenario.h"
#include "tests/unit/scenario-test-support.h"

namespace rea::evidence {
namespace {

using namespace rea::evidence::testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string ZERO_HASH(64, '0');

TEST(Projection, MinimalScenarioMatchesTheBaselineGoldenHashes) {
  Scenario s = parsedOrFail(fixture("minimal.json"));
  EXPECT_EQ(commitment(fullScenarioProjection(s, ZERO_HASH)),
            "92e5c092fecb4d054d1804add25927e34eb9aa9c78d8a2142f46fcc23eb9fb92");
  EXPECT_EQ(commitment(comparisonContract(s)),
            "db6820b359140dfca29f79210b485d4b69d38a71349330f530e6d969e050db74");
  EXPECT_EQ(commitment(normalizationJson(s)),
            "60a27b2d1ee5aa73bf2e5cb2deaed2e9cc548f961ad2e3772c981828b643cc43");
  EXPECT_EQ(commitment(replayPlan(s)),
            "8d63811296390d827ad34a30fac464e5a46b99e592ddc7698f9ed1a1f42695a5");
  EXPECT_EQ(commitment(shimPlan(s)),
            "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945");  // []
}

TEST(Projection, ShimPlanOfTheReferenceExampleMatchesItsGoldenHash) {
  Json input = minimalScenario();
  // max_calls omitted: the default of 1 must appear in the plan.
  input["command_shims"] =
      Json::parse(R"([{"name":"codex","routes":[{"arguments":["--version"],)"
                  R"("outputs":[{"at_ms":0,"data":"codex 1.2.3\n","stream":"stdout"}],)"
                  R"("termination":{"type":"exit","code":0}}]}])");
  Scenario s = parsedOrFail(input);
  EXPECT_EQ(canonicalJson(shimPlan(s)),
            R"([{"name":"codex","routes":[{"arguments":["--version"],"max_calls":1,)"
            R"("outputs":[{"at_ms":0,"data":"codex 1.2.3\n","stream":"stdout"}],)"
            R"("termination":{"code":0,"type":"exit"}}]}])");
  EXPECT_EQ(commitment(shimPlan(s)),
            "d858188a647bb2eb47117ecc3d491ff4c978b7364991032a4d103b81b6d2d838");
}

TEST(Projection, ReferenceDocExampleMatchesTheBaselineOnceItsSensitiveInputIsPutBack) {
  // The baseline hashed the sensitive input in clear text; A3 redacts it. Everything else must be
  // the baseline's byte for byte, which putting the clear text back proves.
  Scenario s = parsedOrFail(fixture("reference-doc-example.json"));
  Json full = fullScenarioProjection(s, ZERO_HASH);
  Json contract = comparisonContract(s);
  EXPECT_EQ(full["events"][0]["data"], "<redacted-input:18-bytes>");
  EXPECT_EQ(contract["events"][0]["data"], "<redacted-input:18-bytes>");
  full["events"][0]["data"] = "user@example.test\r";
  contract["events"][0]["data"] = "user@example.test\r";
  EXPECT_EQ(commitment(full), "5cfcbf4ad7a417b06382c4d87d7b5ea09422b5b784b7a0b287ca92ef97970654");
  EXPECT_EQ(commitment(contract),
            "fbd1a646e1029bcde7fe214a561493f6c746b2821d630a3f622f85abb3343d38");
  EXPECT_EQ(commitment(shimPlan(s)),
            "d858188a647bb2eb47117ecc3d491ff4c978b7364991032a4d103b81b6d2d838");
}

TEST(Projection, ExecutableHashOnlyInTheFullProjectionAndNullWhenAbsent) {
  Scenario s = parsedOrFail(fixture("minimal.json"));
  Json full = fullScenarioProjection(s, std::nullopt);
  ASSERT_TRUE(full.contains("executable_sha256"));
  EXPECT_TRUE(full["executable_sha256"].is_null());
  EXPECT_EQ(fullScenarioProjection(s, ZERO_HASH)["executable_sha256"], ZERO_HASH);
  EXPECT_FALSE(comparisonContract(s).contains("executable_sha256"));
}

TEST(Projection, UnknownRegistryApprovedIsForcedToABoolean) {
  Scenario absent = parsedOrFail(fixture("minimal.json"));
  EXPECT_FALSE(toJson(absent).contains("unknown_registry_approved"));
  EXPECT_EQ(fullScenarioProjection(absent, ZERO_HASH)["unknown_registry_approved"], false);
  Scenario present =
      parsedOrFail(withMember(minimalScenario(), "/unknown_registry_approved", true));
  EXPECT_EQ(fullScenarioProjection(present, ZERO_HASH)["unknown_registry_approved"], true);
  // Kept in its table position, right after `approved`.
  Json full = fullScenarioProjection(absent, ZERO_HASH);
  auto it = full.items().begin();
  EXPECT_EQ(it.key(), "approved");
  ++it;
  EXPECT_EQ(it.key(), "unknown_registry_approved");
}

TEST(Projection, ComparisonContractHasExactlyTheFifteenFields) {
  Json contract = comparisonContract(parsedOrFail(fixture("every-field.json")));
  std::vector<std::string> keys;
  for (const auto& member : contract.items())
    keys.push_back(member.key());
  EXPECT_THAT(keys, ElementsAre("working_directory", "inherit_environment", "secret_aliases",
                                "network_access", "filesystem_roots", "terminal", "checkpoints",
                                "events", "timeout_ms", "idle_timeout_ms", "settle_ms", "limits",
                                "normalization", "command_shims", "replay"));
}

TEST(Projection, ContractIgnoresExecutableArgumentsAndEnvironmentValues) {
  Json left = fixture("every-field.json");
  Json right = left;
  right["executable"] = "/opt/other";
  right["arguments"] = Json{"--different"};
  right["environment"]["PATH"] = "/elsewhere";
  right["unknown_registry_approved"] = true;
  Scenario a = parsedOrFail(left);
  Scenario b = parsedOrFail(right);
  EXPECT_EQ(commitment(comparisonContract(a)), commitment(comparisonContract(b)));
  EXPECT_NE(commitment(fullScenarioProjection(a, ZERO_HASH)),
            commitment(fullScenarioProjection(b, ZERO_HASH)));
  right["working_directory"] = "/tmp/work/";
  EXPECT_NE(commitment(comparisonContract(a)), commitment(comparisonContract(parsedOrFail(right))));
}

TEST(Projection, SecretEnvironmentValuesNeverAppear) {
  Scenario s = parsedOrFail(fixture("every-field.json"));
  Json full = fullScenarioProjection(s, ZERO_HASH);
  EXPECT_EQ(full["environment"]["API_TOKEN"], "<redacted-secret>");
  EXPECT_EQ(full["environment"]["PATH"], "/usr/bin:/bin");  // not a secret: kept
  for (const Json& projection : {full, comparisonContract(s)}) {
    EXPECT_THAT(canonicalJson(projection), Not(HasSubstr("hunter2-secret-value")));
  }
  EXPECT_FALSE(comparisonContract(s).contains("environment"));
  // The parsed scenario itself keeps the value: the target needs it.
  EXPECT_THAT(toJson(s).dump(), HasSubstr("hunter2-secret-value"));
}

TEST(Projection, SensitiveInputDataNeverAppearsButOtherInputDoes) {
  Scenario s = parsedOrFail(fixture("every-field.json"));
  for (const Json& projection : {fullScenarioProjection(s, ZERO_HASH), comparisonContract(s)}) {
    std::string text = canonicalJson(projection);
    EXPECT_THAT(text, Not(HasSubstr("pass-phrase")));
    EXPECT_THAT(text, HasSubstr("<redacted-input:12-bytes>"));
    EXPECT_THAT(text, HasSubstr("hello\\r"));  // the non-sensitive input, escaped by JSON
    EXPECT_EQ(projection["events"][0]["sensitive"], true);
  }
}

TEST(Projection, PlaceholderCountsUtf8Bytes) {
  EXPECT_EQ(redactedInputPlaceholder(""), "<redacted-input:0-bytes>");
  EXPECT_EQ(redactedInputPlaceholder("\xC3\xA9" + ASTRAL), "<redacted-input:6-bytes>");
}

TEST(Projection, PlansAreTheParsedArraysAndObjects) {
  Scenario s = parsedOrFail(fixture("every-field.json"));
  Json json = toJson(s);
  EXPECT_EQ(shimPlan(s), json["command_shims"]);
  EXPECT_EQ(replayPlan(s), json["replay"]);
  EXPECT_EQ(normalizationJson(s), json["normalization"]);
  EXPECT_EQ(canonicalJson(normalizationJson(s)),
            R"({"paths":true,"patterns":[{"pattern":"","replacement":"<empty>"},)"
            R"({"pattern":"v1.2.3","replacement":"<version>"}],"pids":true,"ports":false,)"
            R"("time_bucket_ms":60000})");
  EXPECT_FALSE(replayPlan(s)["http"][1].contains("request_body"));
  EXPECT_EQ(replayPlan(s)["http"][0]["request_body"], "");
}

}  // namespace
}  // namespace rea::evidence
