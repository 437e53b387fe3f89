// Scenario ids and the resume check of `rea capture-batch` (issue 21).

#include "evidence/batch-corpus.h"

#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "evidence/commitment.h"
#include "evidence/compare.h"
#include "evidence/projection.h"
#include "tests/unit/compare-fixtures.h"
#include "tests/unit/scenario-test-support.h"

namespace rea::evidence {
namespace {

TEST(BatchCorpus, IdIsTheRelativePathWithoutJsonWithSlashesAsTildes) {
  EXPECT_EQ(scenarioId("hello.json"), "hello");
  EXPECT_EQ(scenarioId("login/ok.json"), "login~ok");
  EXPECT_EQ(scenarioId("a/b/c.v2.json"), "a~b~c.v2");
  EXPECT_EQ(scenarioId("noext"), "noext");
  EXPECT_EQ(scenarioId("x.json.json"), "x.json");
}

TEST(BatchCorpus, UnsafeBytesArePercentEncodedSoAnIdIsOneSafeFileName) {
  EXPECT_EQ(scenarioId("a b.json"), "a%20b");
  EXPECT_EQ(scenarioId("a~b.json"), "a%7Eb");
  EXPECT_EQ(scenarioId("100%.json"), "100%25");
  EXPECT_EQ(scenarioId("caf\xc3\xa9.json"), "caf%C3%A9");
  // Never hidden, never "." or "..".
  EXPECT_EQ(scenarioId(".hidden.json"), "%2Ehidden");
  EXPECT_EQ(scenarioId("../up.json"), "%2E.~up");
  for (const char* path : {"a/b.json", "a b.json", ".x.json", "../../etc/passwd"}) {
    std::string id = scenarioId(path);
    EXPECT_EQ(id.find('/'), std::string::npos) << path;
    EXPECT_NE(id[0], '.') << path;
  }
}

TEST(BatchCorpus, DifferentScenarioFilesNeverShareAnId) {
  // *.json paths that a naive mapping would merge. (A path without .json and the same path with
  // it do share one: the batch refuses a list that names both.)
  std::vector<std::string> paths = {"a/b.json", "a~b.json",      "a%7Eb.json", "a_b.json",
                                    "a b.json", "a.b.json",      ".a/b.json",  "%2Ea/b.json",
                                    "A/b.json", "a/b.json.json", "a-b.json"};
  std::set<std::string> seen;
  for (const auto& path : paths)
    EXPECT_TRUE(seen.insert(scenarioId(path)).second) << path;
}

TEST(BatchCorpus, EvidenceMatchesOnlyTheScenarioItWasMadeFrom) {
  using testing::minimalScenario;
  using testing::parsedOrFail;
  Scenario scenario = parsedOrFail(minimalScenario());
  std::string hash(64, 'a');
  Json json = compare_fixtures::minimalCapture();
  json["manifest"]["scenario"] = fullScenarioProjection(scenario, hash);
  json["manifest"]["executable_sha256"] = hash;
  auto parsed = parseCapture(json);
  ASSERT_TRUE(parsed.ok()) << parsed.failureMessage();
  Capture capture = *parsed.capture;
  commitManifest(capture);
  EXPECT_TRUE(evidenceMatchesScenario(capture, scenario));

  Scenario edited = parsedOrFail(testing::withMember(minimalScenario(), "/arguments", {"-c", "x"}));
  EXPECT_FALSE(evidenceMatchesScenario(capture, edited));
  Scenario longer = parsedOrFail(testing::withMember(minimalScenario(), "/timeout_ms", 1234));
  EXPECT_FALSE(evidenceMatchesScenario(capture, longer));
}

}  // namespace
}  // namespace rea::evidence
