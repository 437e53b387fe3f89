// Scenario parsing: the cross-field rules of SPEC B §3.5, unknown keys at every level (A14),
// tagged unions, and collecting every issue at once.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "evidence/scenario.h"
#include "tests/unit/scenario-test-support.h"

namespace rea::evidence {
namespace {

using namespace rea::evidence::testing;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

Json withEvents(const char* events, int timeoutMs = 30000) {
  Json input = minimalScenario();
  input["events"] = Json::parse(events);
  input["timeout_ms"] = timeoutMs;
  return input;
}

// ---------------------------------------------------------------------------------------------
// Cross-field rules (B §3.5)

TEST(ScenarioCrossFieldRules, EventsMustBeNonDecreasingReportedAtTheFirstOffendingIndex) {
  EXPECT_THAT(issuesOf(withEvents(R"([{"type":"input","at_ms":5,"data":"a"},)"
                                  R"({"type":"input","at_ms":5,"data":"b"},)"
                                  R"({"type":"input","at_ms":9,"data":"c"}])")),
              IsEmpty());
  EXPECT_THAT(issuesOf(withEvents(R"([{"type":"input","at_ms":5,"data":"a"},)"
                                  R"({"type":"input","at_ms":9,"data":"b"},)"
                                  R"({"type":"input","at_ms":7,"data":"c"},)"
                                  R"({"type":"input","at_ms":1,"data":"d"}])")),
              ElementsAre("events[2].at_ms: events must be non-decreasing in at_ms: 7 is less "
                          "than the 9 of events[1]"));
}

TEST(ScenarioCrossFieldRules, SecretAliasesMustBeExplicitEnvironmentNames) {
  Json input = minimalScenario();
  input["environment"] = Json{{"TOKEN", "t"}};
  input["inherit_environment"] = Json{"INHERITED"};
  input["secret_aliases"] = Json{"TOKEN", "INHERITED", "NOWHERE"};
  EXPECT_THAT(issuesOf(input),
              ElementsAre("secret_aliases[1]: secret alias \"INHERITED\" must be a key of "
                          "environment",
                          "secret_aliases[2]: secret alias \"NOWHERE\" must be a key of "
                          "environment"));
  // Duplicate aliases are accepted as is (B §3.5 "not checked").
  input["secret_aliases"] = Json{"TOKEN", "TOKEN"};
  EXPECT_THAT(issuesOf(input), IsEmpty());
}

TEST(ScenarioCrossFieldRules, ReservedNamesCanBeNeitherSetNorInherited) {
  for (const char* reserved : {"HOME", "TERM", "REA_PROCESS_RUN_ID", "REA_REPLAY_HTTP_URL",
                               "REA_REPLAY_WEBSOCKET_URL", "REA_SHIM_LEDGER_URL"}) {
    Json input = minimalScenario();
    input["environment"] = Json{{reserved, "x"}};
    EXPECT_THAT(issuesOf(input),
                ElementsAre(std::string("environment.") + reserved + ": " + reserved +
                            " is reserved by the harness and may not be set"));
    EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/inherit_environment", Json{reserved})),
                ElementsAre(std::string("inherit_environment[0]: ") + reserved +
                            " is reserved by the harness and may not be inherited"));
  }
  Json path = minimalScenario();
  path["environment"] = Json{{"PATH", "/bin"}};
  EXPECT_THAT(issuesOf(path), IsEmpty());
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/inherit_environment", Json{"PATH"})),
              IsEmpty());
}

TEST(ScenarioCrossFieldRules, ANameCannotBeBothExplicitAndInherited) {
  Json input = minimalScenario();
  input["environment"] = Json{{"LANG", "C"}};
  input["inherit_environment"] = Json{"LC_ALL", "LANG"};
  EXPECT_THAT(issuesOf(input), ElementsAre("inherit_environment[1]: LANG is also set in "
                                           "environment: a name cannot be explicit and "
                                           "inherited"));
  // Repeated inherited names are accepted as is.
  input["environment"] = Json::object();
  input["inherit_environment"] = Json{"LANG", "LANG"};
  EXPECT_THAT(issuesOf(input), IsEmpty());
}

TEST(ScenarioCrossFieldRules, EveryEventAfterTheTimeoutIsAnIssue) {
  EXPECT_THAT(issuesOf(withEvents(R"([{"type":"signal","at_ms":1000,"signal":"SIGINT"}])", 1000)),
              IsEmpty());
  EXPECT_THAT(issuesOf(withEvents(R"([{"type":"signal","at_ms":500,"signal":"SIGINT"},)"
                                  R"({"type":"signal","at_ms":1001,"signal":"SIGINT"},)"
                                  R"({"type":"signal","at_ms":5000,"signal":"SIGTERM"}])",
                                  1000)),
              ElementsAre("events[1].at_ms: must not exceed timeout_ms (1000)",
                          "events[2].at_ms: must not exceed timeout_ms (1000)"));
  // Against the default timeout of 30000.
  Json input = minimalScenario();
  input["events"] = Json::parse(R"([{"type":"input","at_ms":30001,"data":"x"}])");
  EXPECT_THAT(issuesOf(input), ElementsAre("events[0].at_ms: must not exceed timeout_ms (30000)"));
}

TEST(ScenarioCrossFieldRules, ReservedCheckpointNamesAreRejected) {
  Json input = minimalScenario();
  input["checkpoints"] = Json::parse(R"([{"name":"before","trigger":{"type":"settled"}},)"
                                     R"({"name":"after_settlement","trigger":{"type":"settled"}},)"
                                     R"({"name":"Before","trigger":{"type":"settled"}}])");
  EXPECT_THAT(issuesOf(input),
              ElementsAre("checkpoints[0].name: \"before\" is reserved by the capture lifecycle",
                          "checkpoints[1].name: \"after_settlement\" is reserved by the capture "
                          "lifecycle"));
}

TEST(ScenarioCrossFieldRules, CheckpointAndShimNamesAreUnique) {
  Json input = minimalScenario();
  input["checkpoints"] = Json::parse(R"([{"name":"a","trigger":{"type":"settled"}},)"
                                     R"({"name":"b","trigger":{"type":"root_exit"}},)"
                                     R"({"name":"a","trigger":{"type":"time","at_ms":1}}])");
  const char* route = R"({"arguments":[],"termination":{"type":"exit","code":0}})";
  input["command_shims"] = Json::array();
  for (const char* name : {"git", "Git", "git"}) {
    input["command_shims"].push_back(
        Json{{"name", name}, {"routes", Json::array({Json::parse(route)})}});
  }
  EXPECT_THAT(issuesOf(input),
              ElementsAre("checkpoints[2].name: checkpoint names must be unique: \"a\" is also "
                          "the name of checkpoints[0]",
                          "command_shims[2].name: command shim names must be unique: \"git\" is "
                          "also the name of command_shims[0]"));
}

TEST(ScenarioCrossFieldRules, NotCheckedCasesAreAccepted) {
  Json input = minimalScenario();
  input["checkpoints"] =
      Json::parse(R"([{"name":"late","trigger":{"type":"time","at_ms":300000}}])");
  input["timeout_ms"] = 10;
  input["command_shims"] = Json::parse(
      R"([{"name":"s","routes":[{"arguments":["x"],"termination":{"type":"exit","code":0}},)"
      R"({"arguments":["x"],"termination":{"type":"exit","code":1}}]}])");
  input["replay"] = Json::parse(R"({"http":[{"method":"get","path":"/a","status":200,"body":""},)"
                                R"({"method":"get","path":"/a","status":200,"body":""}]})");
  EXPECT_THAT(issuesOf(input), IsEmpty());
}

// ---------------------------------------------------------------------------------------------
// Unknown keys are rejected at every level (A14)

TEST(ScenarioUnknownKeys, TopLevelUnknownKeyIsNamed) {
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/frobs", 1)),
              ElementsAre("frobs: unknown key"));
}

TEST(ScenarioUnknownKeys, NestedUnknownKeysAreNamedWithTheirPath) {
  EXPECT_THAT(
      issuesOf(fixture("invalid-nested-unknown-keys.json")),
      ElementsAre(
          "terminal.colour: unknown key", "checkpoints[0].note: unknown key",
          "checkpoints[0].trigger.at_ms: unknown key", "command_shims[0].alias: unknown key",
          "command_shims[0].routes[0].priority: unknown key",
          "command_shims[0].routes[0].outputs[0].fd: unknown key",
          "command_shims[0].routes[0].termination.foo: unknown key", "events[0].foo: unknown key",
          "limits.foo: unknown key", "normalization.foo: unknown key",
          "normalization.patterns[0].regex: unknown key", "replay.foo: unknown key",
          "replay.http[0].foo: unknown key", "replay.websocket_connections[0].foo: unknown key",
          "replay.websocket_connections[0].messages[0].foo: unknown key"));
}

TEST(ScenarioUnknownKeys, KeysOfOtherUnionMembersAreUnknown) {
  // `columns` belongs to resize events, not to input events.
  EXPECT_THAT(issuesOf(withEvents(R"([{"type":"input","at_ms":0,"data":"x","columns":3}])")),
              ElementsAre("events[0].columns: unknown key"));
  Json input = minimalScenario();
  input["command_shims"] =
      Json::parse(R"([{"name":"s","routes":[{"arguments":[],)"
                  R"("termination":{"type":"signal","signal":"SIGINT","code":0}}]}])");
  EXPECT_THAT(issuesOf(input),
              ElementsAre("command_shims[0].routes[0].termination.code: unknown key"));
}

// ---------------------------------------------------------------------------------------------
// Tagged unions

TEST(ScenarioUnions, UnknownOrMissingTypeIsReportedAndTheRestOfTheElementSkipped) {
  EXPECT_THAT(issuesOf(withEvents(R"([{"type":"beep","at_ms":"x"},{"at_ms":0},)"
                                  R"({"type":null},{"type":"INPUT"},7])")),
              ElementsAre("events[0].type: must be one of \"input\", \"resize\", \"signal\", "
                          "got \"beep\"",
                          "events[1].type: is required",
                          "events[2].type: must be one of \"input\", \"resize\", \"signal\", "
                          "got null",
                          "events[3].type: must be one of \"input\", \"resize\", \"signal\", "
                          "got \"INPUT\"",
                          "events[4]: must be an object, got 7"));
  Json input = minimalScenario();
  input["checkpoints"] =
      Json::parse(R"([{"name":"a","trigger":{"type":"exit"}},)"
                  R"({"name":"b","trigger":{}},{"name":"c","trigger":"settled"}])");
  EXPECT_THAT(issuesOf(input),
              ElementsAre("checkpoints[0].trigger.type: must be one of \"time\", "
                          "\"terminal_literal\", \"root_exit\", \"settled\", got \"exit\"",
                          "checkpoints[1].trigger.type: is required",
                          "checkpoints[2].trigger: must be an object, got \"settled\""));
  input = minimalScenario();
  input["command_shims"] =
      Json::parse(R"([{"name":"s","routes":[{"arguments":[],"termination":{"type":"kill"}},)"
                  R"({"arguments":[]}]}])");
  EXPECT_THAT(issuesOf(input),
              ElementsAre("command_shims[0].routes[0].termination.type: must be one of "
                          "\"exit\", \"signal\", got \"kill\"",
                          "command_shims[0].routes[1].termination: is required"));
}

TEST(ScenarioUnions, MissingFieldsOfEachMemberAreRequired) {
  EXPECT_THAT(issuesOf(withEvents(R"([{"type":"input"},{"type":"resize","at_ms":0,"columns":2},)"
                                  R"({"type":"signal","at_ms":0},)"
                                  R"({"type":"signal","at_ms":0,"signal":"SIGHUP"}])")),
              ElementsAre("events[0].at_ms: is required", "events[0].data: is required",
                          "events[1].rows: is required", "events[2].signal: is required",
                          "events[3].signal: must be one of \"SIGINT\", \"SIGTERM\", "
                          "\"SIGKILL\", got \"SIGHUP\""));
  Json input = minimalScenario();
  input["checkpoints"] = Json::parse(
      R"([{"name":"a","trigger":{"type":"time"}},)"
      R"({"name":"b","trigger":{"type":"terminal_literal"}},{"trigger":{"type":"settled"}},)"
      R"({"name":"d"}])");
  input["command_shims"] = Json::parse(
      R"([{"name":"s","routes":[{"termination":{"type":"exit"}},)"
      R"({"arguments":[],"termination":{"type":"signal"},)"
      R"("outputs":[{"at_ms":0},{"at_ms":0,"stream":"stdin","data":""}]}]},{"routes":[]}])");
  input["replay"] = Json::parse(R"({"http":[{}],"websocket_connections":[{}]})");
  EXPECT_THAT(issuesOf(input),
              ElementsAre("checkpoints[0].trigger.at_ms: is required",
                          "checkpoints[1].trigger.value: is required",
                          "checkpoints[2].name: is required", "checkpoints[3].trigger: is required",
                          "command_shims[0].routes[0].arguments: is required",
                          "command_shims[0].routes[0].termination.code: is required",
                          "command_shims[0].routes[1].outputs[0].stream: is required",
                          "command_shims[0].routes[1].outputs[0].data: is required",
                          "command_shims[0].routes[1].outputs[1].stream: must be one of "
                          "\"stdout\", \"stderr\", got \"stdin\"",
                          "command_shims[0].routes[1].termination.signal: is required",
                          "command_shims[1].name: is required",
                          "command_shims[1].routes: must be an array of 1 to 100 items, got 0 "
                          "items",
                          "replay.http[0].method: is required", "replay.http[0].path: is required",
                          "replay.http[0].status: is required", "replay.http[0].body: is required",
                          "replay.websocket_connections[0].messages: is required"));
}

// ---------------------------------------------------------------------------------------------
// All issues at once

TEST(ScenarioIssues, EveryIssueIsCollectedInOnePass) {
  auto result = parseScenario(fixture("invalid-many-issues.json"));
  EXPECT_FALSE(result.scenario.has_value());
  std::vector<std::string> issues;
  for (const auto& issue : result.issues)
    issues.push_back(issue.path + ": " + issue.message);
  EXPECT_THAT(
      issues,
      ElementsAre(
          "extra: unknown key", "approved: must be true, got false",
          "executable: must be a string starting with /, got \"bin/sh\"",
          "environment.1BAD: the key must be an environment name: a letter or _, then letters, "
          "digits or _",
          "network_access: must be one of \"host\", \"loopback\", got \"none\"",
          "terminal.colour: unknown key",
          "terminal.columns: must be an integer from 1 to 1000, got 0",
          "terminal.rows: must be an integer from 1 to 1000, got \"24\"",
          "terminal.scrollback: must be an integer from 0 to 10000, got null",
          "checkpoints[2].trigger.at_ms: must be an integer from 0 to 300000, got 1.5",
          "command_shims[0].routes[0].termination.code: must be an integer from 0 to 255, got "
          "256",
          "command_shims[1].routes: must be an array of 1 to 100 items, got 0 items",
          "events[2].type: must be one of \"input\", \"resize\", \"signal\", got \"beep\"",
          "limits.frobs: unknown key",
          "events[1].at_ms: events must be non-decreasing in at_ms: 100 is less than the 200 of "
          "events[0]",
          "secret_aliases[0]: secret alias \"MISSING\" must be a key of environment",
          "environment.HOME: HOME is reserved by the harness and may not be set",
          "inherit_environment[1]: TERM is reserved by the harness and may not be inherited",
          "inherit_environment[0]: SHARED is also set in environment: a name cannot be explicit "
          "and inherited",
          "events[3].at_ms: must not exceed timeout_ms (30000)",
          "checkpoints[0].name: \"before\" is reserved by the capture lifecycle",
          "checkpoints[2].name: checkpoint names must be unique: \"dup\" is also the name of "
          "checkpoints[1]",
          "command_shims[1].name: command shim names must be unique: \"tool\" is also the name "
          "of command_shims[0]"));
}

TEST(ScenarioIssues, FormattedIssuesNameThePathAndTheRule) {
  auto result = parseScenario(withEvents(R"([{"type":"input","at_ms":40000,"data":"x"}])"));
  EXPECT_EQ(formatIssues(result.issues), "events[0].at_ms: must not exceed timeout_ms (30000)");
}

}  // namespace
}  // namespace rea::evidence
