#include "evidence/error.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include "tests/test-support.h"

namespace rea::evidence {
namespace {

using rea::test::keysOf;

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

using Keys = std::vector<std::string>;
const Keys SHORT_KEYS = {"error", "category", "message"};
const Keys FULL_KEYS = {"error", "code", "category", "message", "retryable", "remediation"};
const Keys FULL_KEYS_WITH_DETAILS = {"error",     "code",        "category", "message",
                                     "retryable", "remediation", "details"};

void expectShortForm(const CommandError& error, const std::string& category) {
  Json json = error.toJson();
  EXPECT_EQ(keysOf(json), SHORT_KEYS);
  EXPECT_EQ(json["error"], "Process command failed");
  EXPECT_EQ(json["category"], category);
  EXPECT_EQ(json["message"], error.message);
  EXPECT_TRUE(error.isShortForm());
}

void expectFullForm(const CommandError& error, const std::string& code, const std::string& category,
                    bool retryable, bool withDetails) {
  Json json = error.toJson();
  EXPECT_EQ(keysOf(json), withDetails ? FULL_KEYS_WITH_DETAILS : FULL_KEYS);
  EXPECT_EQ(json["error"], "Process command failed");
  EXPECT_EQ(json["code"], code);
  EXPECT_EQ(json["category"], category);
  EXPECT_EQ(json["message"], error.message);
  EXPECT_EQ(json["retryable"], retryable);
  EXPECT_FALSE(error.isShortForm());
}

void expectActionRepeatsMessage(const CommandError& error) {
  Json remediation = error.toJson()["remediation"];
  EXPECT_EQ(keysOf(remediation), (Keys{"action", "restart_required"}));
  EXPECT_EQ(remediation["action"], error.message);
  EXPECT_EQ(remediation["restart_required"], false);
}

TEST(CommandError, ReportsUnreadableInputInTheShortForm) {
  CommandError error = inputUnreadable("scenario.json");
  expectShortForm(error, "invalid_input");
  EXPECT_TRUE(contains(error.message, "`scenario.json`"));
  EXPECT_TRUE(contains(error.message, "read permission") || contains(error.message, "read it"));
}

TEST(CommandError, ReportsOversizedInputAsTruncated) {
  CommandError error = inputTooLarge("big.json");
  expectShortForm(error, "truncated");
  EXPECT_TRUE(contains(error.message, "64 MiB"));
  EXPECT_TRUE(contains(error.message, "67108864"));
  EXPECT_EQ(MAX_INPUT_BYTES, 67108864u);
}

TEST(CommandError, ReportsNonJsonInput) {
  CommandError error = inputNotJson("x.json");
  expectShortForm(error, "invalid_input");
  EXPECT_TRUE(contains(error.message, "not valid JSON"));
}

TEST(CommandError, ListsEveryScenarioIssueInTheMessage) {
  CommandError error = scenarioInvalid(
      {{"events[3].at_ms", "must not exceed timeout_ms (30000)"}, {"approved", "must be true"}});
  expectShortForm(error, "invalid_input");
  EXPECT_TRUE(contains(error.message,
                       "events[3].at_ms: must not exceed timeout_ms (30000); approved: must be "
                       "true"));
  EXPECT_TRUE(contains(error.message, "required fields and limits"));
}

TEST(CommandError, ReportsMalformedEvidenceWithOptionalFindings) {
  CommandError plain = evidenceMalformed("left.json");
  expectShortForm(plain, "invalid_input");
  EXPECT_TRUE(contains(plain.message, "malformed"));
  EXPECT_TRUE(contains(plain.message, "rea capture-process"));

  CommandError withIssues = evidenceMalformed("left.json", {{"frames", "not contiguous"}});
  EXPECT_TRUE(contains(withIssues.message, "frames: not contiguous"));
}

TEST(CommandError, GivesTheLegacyMessageForV3Evidence) {
  CommandError error = evidenceLegacyV3("old.json");
  expectShortForm(error, "invalid_input");
  EXPECT_TRUE(contains(error.message, "v3"));
  EXPECT_TRUE(contains(error.message, "v4"));
  EXPECT_TRUE(contains(error.message, "cannot be upgraded"));
}

TEST(CommandError, ReportsEvidenceOfAnotherWorkflow) {
  CommandError error = evidenceNotCurrentWorkflow("other.json");
  expectShortForm(error, "invalid_input");
  EXPECT_TRUE(contains(error.message, "not produced by the current process capture workflow"));
}

TEST(CommandError, PointsUnexpectedFailuresToDoctor) {
  CommandError error = executionFailure();
  expectShortForm(error, "execution_failure");
  EXPECT_TRUE(contains(error.message, "rea doctor"));

  CommandError withReason =
      executionFailure("The two captures were made under different comparison contracts.");
  EXPECT_EQ(withReason.message.rfind("The two captures were made", 0), 0u);
  EXPECT_TRUE(contains(withReason.message, "rea doctor"));
}

TEST(CommandError, NamesTheVariableInConfigurationErrors) {
  CommandError error =
      configurationInvalid({{"REA_PROCESS_WORKING_ROOTS_JSON[1]", "root `/nope` does not exist"}});
  expectFullForm(error, "configuration_invalid", "execution_failure", false, false);
  expectActionRepeatsMessage(error);
  EXPECT_TRUE(
      contains(error.message, "REA_PROCESS_WORKING_ROOTS_JSON[1]: root `/nope` does not exist"));
  EXPECT_TRUE(contains(error.message, "rea doctor"));
}

TEST(CommandError, DescribesGateOneDenialsWithScopesInDetails) {
  PermissionScope requested{{"/work"}, {"/usr/bin/env"}, {"PATH", "TOKEN"}, "external", false};
  MissingScope missing;
  missing.environmentNames = {"TOKEN"};
  missing.network = "external";
  PermissionScope ceiling{{"/work"}, {"/usr/bin"}, {"PATH"}, "none", false};

  CommandError error = permissionRequired(requested, missing, ceiling);
  expectFullForm(error, "permission_required", "permission_required", false, true);
  Json json = error.toJson();
  EXPECT_EQ(keysOf(json["remediation"]),
            (Keys{"action", "restart_required", "elicitation_supported"}));
  EXPECT_EQ(json["remediation"]["elicitation_supported"], false);
  EXPECT_EQ(json["remediation"]["restart_required"], false);
  EXPECT_NE(json["remediation"]["action"], error.message);
  EXPECT_TRUE(contains(json["remediation"]["action"].get<std::string>(), "missing"));

  const Json& details = json["details"];
  EXPECT_EQ(keysOf(details), (Keys{"capability", "requested", "missing", "ceiling"}));
  EXPECT_EQ(details["capability"], "process_capture");
  EXPECT_EQ(keysOf(details["requested"]),
            (Keys{"capability", "roots", "executables", "environment_names", "network", "mount"}));
  EXPECT_EQ(details["requested"]["environment_names"], Json::parse(R"(["PATH","TOKEN"])"));
  EXPECT_EQ(details["missing"],
            Json::parse(R"({"environment_names":["TOKEN"],"network":"external"})"));
  EXPECT_EQ(details["ceiling"]["network"], "none");
  EXPECT_EQ(details["ceiling"]["executables"], Json::parse(R"(["/usr/bin"])"));
}

TEST(CommandError, UsesANullCeilingWhenCaptureIsDisabled) {
  PermissionScope requested{{"/work"}, {"/bin/true"}, {}, "external", false};
  MissingScope missing;
  missing.roots = {"/work"};
  missing.executables = {"/bin/true"};
  missing.network = "external";
  Json details = permissionRequired(requested, missing, std::nullopt).toJson()["details"];
  EXPECT_TRUE(details["ceiling"].is_null());
  EXPECT_EQ(keysOf(details["missing"]), (Keys{"roots", "executables", "network"}));
}

TEST(CommandError, GivesEachGateTwoDenialItsOwnRemediation) {
  struct Case {
    PolicyDenial reason;
    std::string subject;
    std::string variable;
    std::string hint;
  };
  std::vector<Case> cases = {
      {PolicyDenial::CAPTURE_DISABLED, "", "REA_PROCESS_CAPTURE_ENABLED=true", "disabled"},
      {PolicyDenial::HOST_NETWORK_NOT_APPROVED, "", "REA_PROCESS_ALLOW_EXTERNAL_NETWORK=true",
       "replayed networking"},
      {PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS, "/opt/tool", "REA_PROCESS_EXECUTABLE_ROOTS_JSON",
       "The executable `/opt/tool`"},
      {PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS, "/srv", "REA_PROCESS_WORKING_ROOTS_JSON",
       "The working directory `/srv`"},
      {PolicyDenial::ENVIRONMENT_NOT_ALLOWED, "API_TOKEN", "REA_PROCESS_ALLOWED_ENV_JSON",
       "The environment variable `API_TOKEN`"},
      {PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS, "/data", "REA_PROCESS_WORKING_ROOTS_JSON",
       "Drop it from the scenario's filesystem_roots"},
  };
  std::vector<std::string> seen;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.variable);
    CommandError error = policyDenied(c.reason, c.subject);
    expectFullForm(error, "permission_required", "permission_required", false, false);
    expectActionRepeatsMessage(error);
    EXPECT_TRUE(contains(error.message, c.variable));
    EXPECT_TRUE(contains(error.message, c.hint));
    seen.push_back(error.message);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
}

TEST(CommandError, NamesTheCanonicalPathWhenASymlinkLeadsOut) {
  CommandError error =
      policyDenied(PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS, "/w/bin/link", "/etc/secret-tool");
  EXPECT_TRUE(contains(error.message,
                       "The executable `/w/bin/link` (which resolves to `/etc/secret-tool`)"));
}

TEST(CommandError, ReportsUnreadableOutput) {
  CommandError error = unreadableOutput();
  expectFullForm(error, "unreadable_output", "execution_failure", false, false);
  expectActionRepeatsMessage(error);
  EXPECT_TRUE(contains(error.message, "Try once more"));
  EXPECT_TRUE(contains(error.message, "rea doctor"));
}

TEST(CommandError, ReportsCaptureFailuresWithAnOptionalReason) {
  CommandError generic = processCaptureFailed();
  expectFullForm(generic, "process_capture_failed", "execution_failure", false, false);
  expectActionRepeatsMessage(generic);
  EXPECT_TRUE(contains(generic.message, "rea doctor"));
  EXPECT_TRUE(contains(generic.message, "capture policy"));

  CommandError specific = processCaptureFailed("The scenario's executable `/x` does not exist.");
  EXPECT_EQ(specific.message.rfind("The scenario's executable `/x` does not exist. ", 0), 0u);
  EXPECT_TRUE(contains(specific.message, "rea doctor"));
  expectActionRepeatsMessage(specific);
}

TEST(CommandError, ReportsIncompleteCleanupWithItsDetails) {
  CommandError error = cleanupIncomplete();
  expectFullForm(error, "cleanup_incomplete", "execution_failure", false, true);
  expectActionRepeatsMessage(error);
  EXPECT_EQ(error.toJson()["details"], Json::parse(R"({"cleanup":"incomplete","resources":[]})"));
  EXPECT_TRUE(contains(error.message, "rea doctor"));

  Json listed = cleanupIncomplete("", {"process group 4242"}).toJson()["details"];
  EXPECT_EQ(listed["resources"], Json::parse(R"(["process group 4242"])"));
}

TEST(CommandError, ReportsCancellationAsRetryable) {
  CommandError error = cancelled();
  expectFullForm(error, "cancelled", "cancelled", true, true);
  expectActionRepeatsMessage(error);
  EXPECT_EQ(error.toJson()["details"],
            Json::parse(R"({"operation":"process_capture","cleanup":"complete"})"));
}

TEST(CommandError, SummarisesOnOnePlainLine) {
  CommandError full = processCaptureFailed("Line one.\nLine two.");
  std::string line = full.summary();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(
      line.rfind("rea: process command failed (process_capture_failed): Line one. Line two.", 0),
      0u);

  EXPECT_EQ(
      inputNotJson("a.json").summary().rfind("rea: process command failed (invalid_input): ", 0),
      0u);
}

TEST(CommandError, PrintsMembersInSpecOrderWhenSerialised) {
  EXPECT_EQ(inputNotJson("a.json").toJson().dump().rfind(
                R"({"error":"Process command failed","category":"invalid_input","message":)", 0),
            0u);
  EXPECT_EQ(
      cancelled().toJson().dump().rfind(
          R"({"error":"Process command failed","code":"cancelled","category":"cancelled",)", 0),
      0u);
}

}  // namespace
}  // namespace rea::evidence
