// Scenario parsing: defaults, JSON types, bounds, name rules and UTF-16 lengths (SPEC B0.1,
// B §3.1–3.9, A9). Cross-field rules, unknown keys and tagged unions are in
// scenario-rules-test.c++.

#include "evidence/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/unit/scenario-test-support.h"

namespace rea::evidence {
namespace {

using namespace rea::evidence::testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------------------
// Defaults (B §3.9)

TEST(ScenarioDefaults, MinimalScenarioParsesToExactlyTheListedDefaults) {
  Scenario s = parsedOrFail(fixture("minimal.json"));
  EXPECT_EQ(toJson(s).dump(),
            R"({"approved":true,"executable":"/bin/sh","arguments":[],"working_directory":"/tmp",)"
            R"("environment":{},"inherit_environment":[],"secret_aliases":[],)"
            R"("network_access":"host","filesystem_roots":[],)"
            R"("terminal":{"columns":80,"rows":24,"scrollback":1000},)"
            R"("checkpoints":[],"command_shims":[],"events":[],)"
            R"("timeout_ms":30000,"idle_timeout_ms":30000,"settle_ms":100,)"
            R"("limits":{"output_bytes":1000000,"frames":10000,"files":10000,)"
            R"("file_bytes":10000000,"processes":1000,"protocol_events":10000,)"
            R"("protocol_body_bytes":1000000,"connections":100,"filesystem_depth":16},)"
            R"("normalization":{"paths":true,"pids":true,"ports":true,"time_bucket_ms":10,)"
            R"("patterns":[]},)"
            R"("replay":{"http":[],"websocket_messages":[],"websocket_connections":[]}})");
  EXPECT_FALSE(s.unknownRegistryApproved);
  EXPECT_EQ(s.networkAccess, NetworkAccess::HOST);
}

TEST(ScenarioDefaults, PartiallySuppliedObjectsGetDefaultsForMissingMembers) {
  Json input = minimalScenario();
  input["terminal"] = Json::parse(R"({"rows":50})");
  input["limits"] = Json::parse(R"({"files":7})");
  input["normalization"] = Json::parse(R"({"pids":false})");
  input["replay"] = Json::parse(R"({"websocket_messages":["x"]})");
  Scenario s = parsedOrFail(input);
  EXPECT_EQ(s.terminal.columns, 80);
  EXPECT_EQ(s.terminal.rows, 50);
  EXPECT_EQ(s.terminal.scrollback, 1000);
  EXPECT_EQ(s.limits.files, 7);
  EXPECT_EQ(s.limits.frames, 10000);
  EXPECT_EQ(s.limits.filesystemDepth, 16);
  EXPECT_TRUE(s.normalization.paths);
  EXPECT_FALSE(s.normalization.pids);
  EXPECT_EQ(s.normalization.timeBucketMs, 10);
  EXPECT_TRUE(s.replay.http.empty());
  EXPECT_THAT(s.replay.websocketMessages, ElementsAre("x"));
}

TEST(ScenarioDefaults, NestedDefaultsAreApplied) {
  Json input = minimalScenario();
  input["events"] = Json::parse(R"([{"type":"input","at_ms":0,"data":"x"}])");
  input["checkpoints"] =
      Json::parse(R"([{"name":"c","trigger":{"type":"terminal_literal","value":"ok"}}])");
  input["command_shims"] = Json::parse(
      R"([{"name":"s","routes":[{"arguments":[],"termination":{"type":"exit","code":0}}]}])");
  input["replay"] = Json::parse(R"({"http":[{"method":"GET","path":"/","status":200,"body":""}],)"
                                R"("websocket_connections":[{"messages":[{"data":"m"}]}]})");
  Json json = toJson(parsedOrFail(input));
  EXPECT_EQ(json["events"][0]["sensitive"], false);
  EXPECT_EQ(json["checkpoints"][0]["trigger"]["occurrence"], 1);
  EXPECT_EQ(json["command_shims"][0]["routes"][0]["outputs"], Json::array());
  EXPECT_EQ(json["command_shims"][0]["routes"][0]["max_calls"], 1);
  EXPECT_EQ(json["replay"]["http"][0].dump(),
            R"({"method":"GET","path":"/","status":200,"body":"","request_headers":{},)"
            R"("response_headers":{},"delay_ms":0,"disconnect":false,"max_calls":1})");
  EXPECT_EQ(json["replay"]["websocket_connections"][0].dump(),
            R"({"messages":[{"data":"m","delay_ms":0}],"disconnect_after":false})");
}

TEST(ScenarioDefaults, AbsentRequestBodyStaysAbsentAndAnEmptyOneIsKept) {
  Json input = minimalScenario();
  input["replay"] = Json::parse(R"({"http":[{"method":"GET","path":"/","status":200,"body":""},)"
                                R"({"method":"GET","path":"/","status":200,"body":"",)"
                                R"("request_body":""}]})");
  Scenario s = parsedOrFail(input);
  EXPECT_FALSE(s.replay.http[0].requestBody.has_value());
  EXPECT_EQ(s.replay.http[1].requestBody, std::optional<std::string>(""));
  Json json = toJson(s);
  EXPECT_FALSE(json["replay"]["http"][0].contains("request_body"));
  EXPECT_EQ(json["replay"]["http"][1]["request_body"], "");
}

TEST(ScenarioDefaults, EveryFieldFixtureRoundTripsThroughToJson) {
  Json input = fixture("every-field.json");
  Scenario s = parsedOrFail(input);
  Json json = toJson(s);
  // Re-parsing the output gives the same output: nothing is lost or invented.
  EXPECT_EQ(toJson(parsedOrFail(json)), json);
  EXPECT_TRUE(s.unknownRegistryApproved);
  EXPECT_EQ(json["unknown_registry_approved"], true);
  EXPECT_EQ(s.networkAccess, NetworkAccess::LOOPBACK);
  EXPECT_EQ(json["network_access"], "loopback");
  ASSERT_EQ(s.environment.size(), 3u);
  EXPECT_EQ(s.environment[1].name, "API_TOKEN");  // input order kept
  ASSERT_EQ(s.events.size(), 4u);
  EXPECT_TRUE(std::get<InputAction>(s.events[0].action).sensitive);
  EXPECT_EQ(std::get<ResizeAction>(s.events[2].action).columns, 1000);
  EXPECT_EQ(std::get<SignalAction>(s.events[3].action).signal, TargetSignal::KILL);
  EXPECT_EQ(std::get<TimeTrigger>(s.checkpoints[0].trigger.kind).atMs, 300000);
  EXPECT_EQ(std::get<TerminalLiteralTrigger>(s.checkpoints[1].trigger.kind).occurrence, 2);
  EXPECT_TRUE(std::holds_alternative<RootExitTrigger>(s.checkpoints[2].trigger.kind));
  EXPECT_TRUE(std::holds_alternative<SettledTrigger>(s.checkpoints[3].trigger.kind));
  const Route& second = s.commandShims[0].routes[1];
  EXPECT_EQ(std::get<SignalTermination>(second.termination.kind).signal, TargetSignal::TERMINATE);
  EXPECT_EQ(s.commandShims[0].routes[0].outputs[1].stream, OutputStream::STDERR);
  EXPECT_EQ(s.normalization.patterns[0].pattern, "");
  EXPECT_EQ(s.replay.http[1].method, "get");  // lowercase accepted (it just never matches)
  EXPECT_EQ(s.replay.websocketConnections[0].messages[1].delayMs, 30000);
  EXPECT_EQ(json["replay"]["http"][0]["request_headers"]["content-type"], "application/json");
}

TEST(ScenarioDefaults, SignalNamesAndNumbers) {
  EXPECT_STREQ(signalName(TargetSignal::INTERRUPT), "SIGINT");
  EXPECT_STREQ(signalName(TargetSignal::TERMINATE), "SIGTERM");
  EXPECT_STREQ(signalName(TargetSignal::KILL), "SIGKILL");
  EXPECT_EQ(signalNumber(TargetSignal::INTERRUPT), 2);
  EXPECT_EQ(signalNumber(TargetSignal::TERMINATE), 15);
  EXPECT_EQ(signalNumber(TargetSignal::KILL), 9);
}

// ---------------------------------------------------------------------------------------------
// Required top-level fields and literals

TEST(ScenarioTopLevel, ApprovedMustBeLiteralTrue) {
  Json absent = minimalScenario();
  absent.erase("approved");
  EXPECT_THAT(issuesOf(absent), ElementsAre("approved: is required and must be true"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/approved", false)),
              ElementsAre("approved: must be true, got false"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/approved", "true")),
              ElementsAre("approved: must be true, got \"true\""));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/approved", 1)),
              ElementsAre("approved: must be true, got 1"));
}

TEST(ScenarioTopLevel, UnknownRegistryApprovedIsTrueOrAbsent) {
  EXPECT_TRUE(parsedOrFail(withMember(minimalScenario(), "/unknown_registry_approved", true))
                  .unknownRegistryApproved);
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/unknown_registry_approved", false)),
              ElementsAre("unknown_registry_approved: must be true, got false"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/unknown_registry_approved", nullptr)),
              ElementsAre("unknown_registry_approved: must be true, got null"));
}

TEST(ScenarioTopLevel, ExecutableAndWorkingDirectoryAreRequiredAbsolutePaths) {
  Json input = Json::parse(R"({"approved":true})");
  EXPECT_THAT(issuesOf(input),
              ElementsAre("executable: is required", "working_directory: is required"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/executable", "sh")),
              ElementsAre("executable: must be a string starting with /, got \"sh\""));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/working_directory", "")),
              ElementsAre("working_directory: must be a string starting with /, got \"\""));
  // "/" itself is accepted as written (B §3.5 "not checked").
  EXPECT_EQ(parsedOrFail(withMember(minimalScenario(), "/working_directory", "/")).workingDirectory,
            "/");
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/filesystem_roots", Json{"/a", "b"})),
              ElementsAre("filesystem_roots[1]: must be a string starting with /, got \"b\""));
}

TEST(ScenarioTopLevel, NetworkAccessAcceptsHostAndLoopback) {
  EXPECT_EQ(parsedOrFail(withMember(minimalScenario(), "/network_access", "host")).networkAccess,
            NetworkAccess::HOST);
  EXPECT_EQ(
      parsedOrFail(withMember(minimalScenario(), "/network_access", "loopback")).networkAccess,
      NetworkAccess::LOOPBACK);
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/network_access", "none")),
              ElementsAre("network_access: must be one of \"host\", \"loopback\", got \"none\""));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/network_access", "HOST")),
              ElementsAre("network_access: must be one of \"host\", \"loopback\", got \"HOST\""));
}

TEST(ScenarioTopLevel, NonObjectInputIsOneIssueAtTheRoot) {
  auto result = parseScenario(Json::parse("[1]"));
  ASSERT_EQ(result.issues.size(), 1u);
  EXPECT_EQ(result.issues[0].path, "");
  EXPECT_EQ(result.issues[0].message, "a scenario must be a JSON object, got an array");
  EXPECT_FALSE(result.scenario.has_value());
}

// ---------------------------------------------------------------------------------------------
// JSON types (B0.1): no coercion, integral floats are integers, null is never absence

TEST(ScenarioTypes, NumbersInStringsAreNotNumbers) {
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/terminal/columns", "80")),
              ElementsAre("terminal.columns: must be an integer from 1 to 1000, got \"80\""));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/timeout_ms", "30000")),
              ElementsAre("timeout_ms: must be an integer from 1 to 300000, got \"30000\""));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/settle_ms", true)),
              ElementsAre("settle_ms: must be an integer from 0 to 10000, got true"));
}

TEST(ScenarioTypes, IntegralFloatsAreIntegersAndFractionsAreNot) {
  Scenario s = parsedOrFail(
      Json::parse(R"({"approved":true,"executable":"/bin/sh","working_directory":"/tmp",)"
                  R"("terminal":{"columns":1.0,"rows":1e2},"settle_ms":-0.0,"timeout_ms":3e4})"));
  EXPECT_EQ(s.terminal.columns, 1);
  EXPECT_EQ(s.terminal.rows, 100);
  EXPECT_EQ(s.settleMs, 0);
  EXPECT_EQ(s.timeoutMs, 30000);
  // Printed back as integers, so the commitments match the baseline's.
  EXPECT_EQ(toJson(s)["terminal"]["columns"].dump(), "1");
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/terminal/columns", 1.5)),
              ElementsAre("terminal.columns: must be an integer from 1 to 1000, got 1.5"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/limits/frames", 10000.5)),
              ElementsAre("limits.frames: must be an integer from 1 to 100000, got 10000.5"));
}

TEST(ScenarioTypes, HugeNumbersAreOutOfRangeNotWrapped) {
  EXPECT_THAT(issuesOf(Json::parse(R"({"approved":true,"executable":"/bin/sh",)"
                                   R"("working_directory":"/tmp",)"
                                   R"("timeout_ms":18446744073709551615})")),
              ElementsAre("timeout_ms: must be an integer from 1 to 300000, "
                          "got 18446744073709551615"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/settle_ms", -1)),
              ElementsAre("settle_ms: must be an integer from 0 to 10000, got -1"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/settle_ms", 1e300)),
              ElementsAre("settle_ms: must be an integer from 0 to 10000, got 1e+300"));
}

TEST(ScenarioTypes, NullIsATypeErrorNotAbsence) {
  for (const char* pointer : {"/arguments",
                              "/environment",
                              "/inherit_environment",
                              "/secret_aliases",
                              "/network_access",
                              "/filesystem_roots",
                              "/terminal",
                              "/checkpoints",
                              "/command_shims",
                              "/events",
                              "/timeout_ms",
                              "/idle_timeout_ms",
                              "/settle_ms",
                              "/limits",
                              "/normalization",
                              "/replay",
                              "/terminal/columns",
                              "/limits/files",
                              "/normalization/paths",
                              "/normalization/patterns",
                              "/replay/http",
                              "/replay/websocket_messages",
                              "/replay/websocket_connections",
                              "/executable",
                              "/working_directory"}) {
    auto issues = parseScenario(withMember(minimalScenario(), pointer, nullptr)).issues;
    ASSERT_EQ(issues.size(), 1u) << pointer << ": " << formatIssues(issues);
    EXPECT_THAT(issues[0].message, HasSubstr("got null")) << pointer;
  }
}

TEST(ScenarioTypes, NestedNullsAreTypeErrorsToo) {
  Json input = minimalScenario();
  input["events"] = Json::parse(R"([{"type":"input","at_ms":0,"data":"x","sensitive":null}])");
  input["checkpoints"] = Json::parse(
      R"([{"name":"c","trigger":{"type":"terminal_literal","value":"v","occurrence":null}}])");
  input["replay"] = Json::parse(R"({"http":[{"method":"GET","path":"/","status":200,)"
                                R"("body":"","request_body":null,"delay_ms":null}]})");
  EXPECT_THAT(issuesOf(input),
              ElementsAre("checkpoints[0].trigger.occurrence: must be an integer from 1 to 1000, "
                          "got null",
                          "events[0].sensitive: must be a boolean, got null",
                          "replay.http[0].request_body: must be a string, got null",
                          "replay.http[0].delay_ms: must be an integer from 0 to 30000, got null"));
}

TEST(ScenarioTypes, WrongContainerTypesAreReported) {
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/arguments", "a b")),
              ElementsAre("arguments: must be an array of at most 256 items, got \"a b\""));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/arguments", Json{"a", 1, false})),
              ElementsAre("arguments[1]: must be a string, got 1",
                          "arguments[2]: must be a string, got false"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/terminal", Json::array())),
              ElementsAre("terminal: must be an object, got an array"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/environment", Json{{"A", 1}})),
              ElementsAre("environment.A: must be a string, got 1"));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/normalization/paths", "true")),
              ElementsAre("normalization.paths: must be a boolean, got \"true\""));
  EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/normalization/ports", 1)),
              ElementsAre("normalization.ports: must be a boolean, got 1"));
}

// ---------------------------------------------------------------------------------------------
// Integer bounds: min and max are accepted, one past each is rejected

struct IntegerBound {
  const char* base;     // JSON members merged into the minimal scenario
  const char* pointer;  // where the bounded integer sits
  int64_t min;
  int64_t max;
  const char* path;  // the issue path
};

const IntegerBound INTEGER_BOUNDS[] = {
    {"{}", "/terminal/columns", 1, 1000, "terminal.columns"},
    {"{}", "/terminal/rows", 1, 1000, "terminal.rows"},
    {"{}", "/terminal/scrollback", 0, 10000, "terminal.scrollback"},
    {"{}", "/timeout_ms", 1, 300000, "timeout_ms"},
    {"{}", "/idle_timeout_ms", 1, 300000, "idle_timeout_ms"},
    {"{}", "/settle_ms", 0, 10000, "settle_ms"},
    {"{}", "/limits/output_bytes", 1, 10000000, "limits.output_bytes"},
    {"{}", "/limits/frames", 1, 100000, "limits.frames"},
    {"{}", "/limits/files", 1, 100000, "limits.files"},
    {"{}", "/limits/file_bytes", 1, 100000000, "limits.file_bytes"},
    {"{}", "/limits/processes", 1, 10000, "limits.processes"},
    {"{}", "/limits/protocol_events", 1, 100000, "limits.protocol_events"},
    {"{}", "/limits/protocol_body_bytes", 1, 10000000, "limits.protocol_body_bytes"},
    {"{}", "/limits/connections", 1, 1000, "limits.connections"},
    {"{}", "/limits/filesystem_depth", 1, 64, "limits.filesystem_depth"},
    {"{}", "/normalization/time_bucket_ms", 1, 60000, "normalization.time_bucket_ms"},
    {R"({"events":[{"type":"resize","at_ms":0,"columns":1,"rows":1}]})", "/events/0/columns", 1,
     1000, "events[0].columns"},
    {R"({"events":[{"type":"resize","at_ms":0,"columns":1,"rows":1}]})", "/events/0/rows", 1, 1000,
     "events[0].rows"},
    {R"({"checkpoints":[{"name":"c","trigger":{"type":"time","at_ms":0}}]})",
     "/checkpoints/0/trigger/at_ms", 0, 300000, "checkpoints[0].trigger.at_ms"},
    {R"({"checkpoints":[{"name":"c","trigger":{"type":"terminal_literal","value":"v"}}]})",
     "/checkpoints/0/trigger/occurrence", 1, 1000, "checkpoints[0].trigger.occurrence"},
    {R"({"command_shims":[{"name":"s","routes":[{"arguments":[],)"
     R"("outputs":[{"at_ms":0,"stream":"stdout","data":""}],)"
     R"("termination":{"type":"exit","code":0}}]}]})",
     "/command_shims/0/routes/0/outputs/0/at_ms", 0, 300000,
     "command_shims[0].routes[0].outputs[0].at_ms"},
    {R"({"command_shims":[{"name":"s","routes":[{"arguments":[],)"
     R"("termination":{"type":"exit","code":0}}]}]})",
     "/command_shims/0/routes/0/termination/code", 0, 255,
     "command_shims[0].routes[0].termination.code"},
    {R"({"command_shims":[{"name":"s","routes":[{"arguments":[],)"
     R"("termination":{"type":"exit","code":0}}]}]})",
     "/command_shims/0/routes/0/max_calls", 1, 100, "command_shims[0].routes[0].max_calls"},
    {R"({"replay":{"http":[{"method":"GET","path":"/","status":200,"body":""}]}})",
     "/replay/http/0/status", 100, 599, "replay.http[0].status"},
    {R"({"replay":{"http":[{"method":"GET","path":"/","status":200,"body":""}]}})",
     "/replay/http/0/delay_ms", 0, 30000, "replay.http[0].delay_ms"},
    {R"({"replay":{"http":[{"method":"GET","path":"/","status":200,"body":""}]}})",
     "/replay/http/0/max_calls", 1, 100, "replay.http[0].max_calls"},
    {R"({"replay":{"websocket_connections":[{"messages":[{"data":""}]}]}})",
     "/replay/websocket_connections/0/messages/0/delay_ms", 0, 30000,
     "replay.websocket_connections[0].messages[0].delay_ms"},
};

TEST(ScenarioBounds, EveryIntegerAcceptsItsBoundsAndRejectsOnePastEach) {
  for (const auto& bound : INTEGER_BOUNDS) {
    Json base = minimalScenario();
    base.update(Json::parse(bound.base));
    std::string rule = std::string(bound.path) + ": must be an integer from " +
                       std::to_string(bound.min) + " to " + std::to_string(bound.max) + ", got ";
    for (int64_t ok : {bound.min, bound.max}) {
      EXPECT_THAT(issuesOf(withMember(base, bound.pointer, ok)), ElementsAre())
          << bound.pointer << " = " << ok;
    }
    for (int64_t bad : {bound.min - 1, bound.max + 1}) {
      EXPECT_THAT(issuesOf(withMember(base, bound.pointer, bad)),
                  ElementsAre(rule + std::to_string(bad)))
          << bound.pointer << " = " << bad;
    }
  }
}

TEST(ScenarioBounds, EventTimesHaveNoUpperBoundButTheTimeout) {
  Json input = minimalScenario();
  input["events"] = Json::parse(R"([{"type":"signal","at_ms":-1,"signal":"SIGINT"}])");
  EXPECT_THAT(issuesOf(input),
              ElementsAre("events[0].at_ms: must be an integer of at least 0, got -1"));
  input["events"][0]["at_ms"] = 0;
  EXPECT_THAT(issuesOf(input), ElementsAre());
  input["timeout_ms"] = 300000;
  input["events"][0]["at_ms"] = 300000;
  EXPECT_THAT(issuesOf(input), ElementsAre());
}

struct CountBound {
  const char* pointer;  // the array
  size_t min;
  size_t max;
  std::function<Json(size_t)> element;  // the i-th valid element
  const char* path;
  const char* base;  // members merged into the minimal scenario first
};

Json routeElement(size_t) {
  return Json::parse(R"({"arguments":[],"termination":{"type":"exit","code":0}})");
}

const std::vector<CountBound>& countBounds() {
  static const std::vector<CountBound> bounds = {
      {"/arguments", 0, 256, [](size_t) { return Json("a"); }, "arguments", "{}"},
      {"/inherit_environment", 0, 64, [](size_t) { return Json("LANG"); }, "inherit_environment",
       "{}"},
      {"/secret_aliases", 0, 64, [](size_t) { return Json("TOKEN"); }, "secret_aliases",
       R"({"environment":{"TOKEN":"t"}})"},
      {"/filesystem_roots", 0, 16, [](size_t) { return Json("/r"); }, "filesystem_roots", "{}"},
      {"/checkpoints", 0, 64,
       [](size_t i) {
         return Json{{"name", "c" + std::to_string(i)}, {"trigger", {{"type", "settled"}}}};
       },
       "checkpoints", "{}"},
      {"/command_shims", 0, 32,
       [](size_t i) {
         return Json{{"name", "s" + std::to_string(i)}, {"routes", Json::array({routeElement(0)})}};
       },
       "command_shims", "{}"},
      {"/events", 0, 1000,
       [](size_t) {
         return Json{{"type", "signal"}, {"at_ms", 0}, {"signal", "SIGINT"}};
       },
       "events", "{}"},
      {"/command_shims/0/routes", 1, 100, routeElement, "command_shims[0].routes",
       R"({"command_shims":[{"name":"s","routes":[]}]})"},
      {"/command_shims/0/routes/0/arguments", 0, 256, [](size_t) { return Json("x"); },
       "command_shims[0].routes[0].arguments",
       R"({"command_shims":[{"name":"s","routes":[{"arguments":[],)"
       R"("termination":{"type":"exit","code":0}}]}]})"},
      {"/command_shims/0/routes/0/outputs", 0, 1000,
       [](size_t) {
         return Json{{"at_ms", 0}, {"stream", "stdout"}, {"data", "o"}};
       },
       "command_shims[0].routes[0].outputs",
       R"({"command_shims":[{"name":"s","routes":[{"arguments":[],)"
       R"("termination":{"type":"exit","code":0}}]}]})"},
      {"/normalization/patterns", 0, 32,
       [](size_t) {
         return Json{{"pattern", "p"}, {"replacement", "r"}};
       },
       "normalization.patterns", "{}"},
      {"/replay/http", 0, 100,
       [](size_t) {
         return Json{{"method", "GET"}, {"path", "/"}, {"status", 200}, {"body", ""}};
       },
       "replay.http", "{}"},
      {"/replay/websocket_messages", 0, 100, [](size_t) { return Json("m"); },
       "replay.websocket_messages", "{}"},
      {"/replay/websocket_connections", 0, 100,
       [](size_t) {
         return Json{{"messages", Json::array()}};
       },
       "replay.websocket_connections", "{}"},
      {"/replay/websocket_connections/0/messages", 0, 100,
       [](size_t) {
         return Json{{"data", "d"}};
       },
       "replay.websocket_connections[0].messages",
       R"({"replay":{"websocket_connections":[{"messages":[]}]}})"},
  };
  return bounds;
}

TEST(ScenarioBounds, EveryArrayAcceptsItsItemCountBoundsAndRejectsOnePastEach) {
  for (const auto& bound : countBounds()) {
    Json base = minimalScenario();
    base.update(Json::parse(bound.base));
    auto arrayOf = [&](size_t count) {
      Json array = Json::array();
      for (size_t i = 0; i < count; ++i)
        array.push_back(bound.element(i));
      return array;
    };
    EXPECT_THAT(issuesOf(withMember(base, bound.pointer, arrayOf(bound.min))), ElementsAre())
        << bound.pointer;
    EXPECT_THAT(issuesOf(withMember(base, bound.pointer, arrayOf(bound.max))), ElementsAre())
        << bound.pointer;
    std::string rule = bound.min == 0
                           ? "must be an array of at most " + std::to_string(bound.max) + " items"
                           : "must be an array of " + std::to_string(bound.min) + " to " +
                                 std::to_string(bound.max) + " items";
    EXPECT_THAT(issuesOf(withMember(base, bound.pointer, arrayOf(bound.max + 1))),
                ElementsAre(std::string(bound.path) + ": " + rule + ", got " +
                            std::to_string(bound.max + 1) + " items"))
        << bound.pointer;
    if (bound.min > 0) {
      EXPECT_THAT(issuesOf(withMember(base, bound.pointer, arrayOf(bound.min - 1))),
                  ElementsAre(std::string(bound.path) + ": " + rule + ", got " +
                              std::to_string(bound.min - 1) + " items"))
          << bound.pointer;
    }
  }
}

struct LengthBound {
  const char* base;
  const char* pointer;
  size_t max;
  const char* path;
};

const LengthBound LENGTH_BOUNDS[] = {
    {R"({"checkpoints":[{"name":"c","trigger":{"type":"terminal_literal","value":"v"}}]})",
     "/checkpoints/0/trigger/value", 10000, "checkpoints[0].trigger.value"},
    {R"({"command_shims":[{"name":"s","routes":[{"arguments":[],)"
     R"("outputs":[{"at_ms":0,"stream":"stdout","data":""}],)"
     R"("termination":{"type":"exit","code":0}}]}]})",
     "/command_shims/0/routes/0/outputs/0/data", 1000000,
     "command_shims[0].routes[0].outputs[0].data"},
    {R"({"normalization":{"patterns":[{"pattern":"","replacement":""}]}})",
     "/normalization/patterns/0/pattern", 500, "normalization.patterns[0].pattern"},
    {R"({"normalization":{"patterns":[{"pattern":"","replacement":""}]}})",
     "/normalization/patterns/0/replacement", 100, "normalization.patterns[0].replacement"},
    {R"({"replay":{"http":[{"method":"GET","path":"/","status":200,"body":""}]}})",
     "/replay/http/0/method", 16, "replay.http[0].method"},
    {R"({"replay":{"http":[{"method":"GET","path":"/","status":200,"body":""}]}})",
     "/replay/http/0/body", 1000000, "replay.http[0].body"},
    {R"({"replay":{"http":[{"method":"GET","path":"/","status":200,"body":""}]}})",
     "/replay/http/0/request_body", 1000000, "replay.http[0].request_body"},
    {R"({"replay":{"websocket_messages":[""]}})", "/replay/websocket_messages/0", 1000000,
     "replay.websocket_messages[0]"},
    {R"({"replay":{"websocket_connections":[{"messages":[{"data":""}]}]}})",
     "/replay/websocket_connections/0/messages/0/data", 1000000,
     "replay.websocket_connections[0].messages[0].data"},
};

TEST(ScenarioBounds, StringLengthsAreCountedInUtf16CodeUnits) {
  for (const auto& bound : LENGTH_BOUNDS) {
    Json base = minimalScenario();
    base.update(Json::parse(bound.base));
    // max/2 astral characters are exactly `max` code units (twice as many UTF-8 bytes).
    std::string atMax = repeat(ASTRAL, bound.max / 2);
    EXPECT_THAT(issuesOf(withMember(base, bound.pointer, atMax)), ElementsAre()) << bound.pointer;
    EXPECT_THAT(issuesOf(withMember(base, bound.pointer, atMax + "a")),
                ElementsAre(std::string(bound.path) + ": must be a string of at most " +
                            std::to_string(bound.max) + " characters (UTF-16 code units), got " +
                            std::to_string(bound.max + 1)))
        << bound.pointer;
  }
}

TEST(ScenarioBounds, TerminalLiteralMustNotBeEmpty) {
  Json input = minimalScenario();
  input["checkpoints"] =
      Json::parse(R"([{"name":"c","trigger":{"type":"terminal_literal","value":""}}])");
  EXPECT_THAT(issuesOf(input), ElementsAre("checkpoints[0].trigger.value: must not be empty"));
}

TEST(ScenarioBounds, UnboundedStringsAcceptLongValues) {
  std::string longText(2000000, 'x');
  Json input = minimalScenario();
  input["arguments"] = Json{longText};
  input["environment"] = Json{{"V", longText}};
  input["events"] = Json::array({Json{{"type", "input"}, {"at_ms", 0}, {"data", longText}}});
  EXPECT_THAT(issuesOf(input), ElementsAre());
}

// ---------------------------------------------------------------------------------------------
// Name rules

TEST(ScenarioNames, EnvironmentNamesStartWithALetterOrUnderscore) {
  for (const char* good : {"A", "_", "_9", "a1_B", "PATH"}) {
    Json input = minimalScenario();
    input["environment"] = Json{{good, "v"}};
    input["secret_aliases"] = Json{good};
    EXPECT_THAT(issuesOf(input), ElementsAre()) << good;
    EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/inherit_environment", Json{good})),
                ElementsAre())
        << good;
  }
  const std::string rule = "must be an environment name: a letter or _, then letters, digits or _";
  for (const std::string bad : {"", "1A", "A-B", "A B", "A.B", "\xC3\x89T\xC3\x89", "A="}) {
    Json input = minimalScenario();
    input["environment"] = Json{{bad, "v"}};
    EXPECT_THAT(issuesOf(input), ElementsAre(childPath("environment", bad) + ": the key " + rule))
        << bad;
    EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/inherit_environment", Json{bad})),
                ElementsAre("inherit_environment[0]: " + rule + ", got " + Json(bad).dump()))
        << bad;
    EXPECT_THAT(issuesOf(withMember(minimalScenario(), "/secret_aliases", Json{bad})),
                ElementsAre("secret_aliases[0]: " + rule + ", got " + Json(bad).dump()))
        << bad;
  }
}

TEST(ScenarioNames, CheckpointNamesAreOneToSixtyFourSafeCharacters) {
  auto withName = [](const std::string& name) {
    Json input = minimalScenario();
    input["checkpoints"] = Json::array({Json{{"name", name}, {"trigger", {{"type", "settled"}}}}});
    return input;
  };
  for (const std::string& good :
       std::vector<std::string>{"a", "9", "a-b_c", "Z9-", std::string(64, 'x')}) {
    EXPECT_THAT(issuesOf(withName(good)), ElementsAre()) << good;
  }
  const std::string rule =
      "checkpoints[0].name: must start with a letter or digit and contain only letters, digits, "
      "_ and -, got ";
  for (const std::string bad : {"-a", "_a", "a.b", "a/b", "a b", "\xC3\xA9"}) {
    EXPECT_THAT(issuesOf(withName(bad)), ElementsAre(rule + Json(bad).dump())) << bad;
  }
  EXPECT_THAT(issuesOf(withName("")),
              ElementsAre("checkpoints[0].name: must be 1 to 64 characters (UTF-16 code units), "
                          "got 0"));
  EXPECT_THAT(issuesOf(withName(std::string(65, 'x'))),
              ElementsAre("checkpoints[0].name: must be 1 to 64 characters (UTF-16 code units), "
                          "got 65"));
}

TEST(ScenarioNames, AstralCheckpointNameIsMeasuredInUtf16CodeUnits) {
  // 64 astral characters: 64 code points but 128 UTF-16 code units, so too long (and not ASCII
  // alphanumeric either). 33 of them (66 units) are already too long.
  for (size_t count : {64, 33}) {
    Json input = minimalScenario();
    input["checkpoints"] =
        Json::array({Json{{"name", repeat(ASTRAL, count)}, {"trigger", {{"type", "settled"}}}}});
    auto issues = issuesOf(input);
    ASSERT_EQ(issues.size(), 2u);
    EXPECT_EQ(issues[0],
              "checkpoints[0].name: must be 1 to 64 characters (UTF-16 code units), got " +
                  std::to_string(2 * count));
    EXPECT_THAT(issues[1], HasSubstr("must start with a letter or digit"));
  }
}

TEST(ScenarioNames, ShimNamesAllowDotsButNoSlash) {
  auto withName = [](const std::string& name) {
    Json input = minimalScenario();
    input["command_shims"] = Json::array(
        {Json{{"name", name},
              {"routes", Json::array({Json{{"arguments", Json::array()},
                                           {"termination", {{"type", "exit"}, {"code", 0}}}}})}}});
    return input;
  };
  for (const std::string& good :
       std::vector<std::string>{"a", "9", "git.real-1_x", "A..", std::string(128, 'x')}) {
    EXPECT_THAT(issuesOf(withName(good)), ElementsAre()) << good;
  }
  const std::string rule =
      "command_shims[0].name: must start with a letter or digit and contain only letters, "
      "digits, ., _ and -, got ";
  for (const std::string bad : {".a", "-a", "_a", "a/b", "/a", "a b"}) {
    EXPECT_THAT(issuesOf(withName(bad)), ElementsAre(rule + Json(bad).dump())) << bad;
  }
  EXPECT_THAT(issuesOf(withName(std::string(129, 'x'))),
              ElementsAre("command_shims[0].name: must be 1 to 128 characters (UTF-16 code "
                          "units), got 129"));
  EXPECT_THAT(issuesOf(withName("")),
              ElementsAre("command_shims[0].name: must be 1 to 128 characters (UTF-16 code "
                          "units), got 0"));
}

}  // namespace
}  // namespace rea::evidence

namespace rea::evidence::testing {
namespace {

TEST(ScenarioStrings, AStringTheSystemWouldCutAtANulIsRefused) {
  // execve and every path call end a string at its first NUL: the target would run with
  // something else than the scenario says, and the policy would check another path.
  const std::string nul("a\0b", 3);
  struct Case {
    const char* pointer;
    Json value;
    const char* issue;
  };
  for (const Case& c : {
           Case{"/executable", "/bin/sh" + nul, "executable: must not contain a NUL character"},
           Case{"/working_directory", "/tmp/" + nul,
                "working_directory: must not contain a NUL character"},
           Case{"/arguments", Json{"-c", "echo " + nul},
                "arguments[1]: must not contain a NUL character"},
           Case{"/environment", Json{{"NAME", nul}},
                "environment.NAME: must not contain a NUL character"},
           Case{"/filesystem_roots", Json{"/tmp", "/tmp/" + nul},
                "filesystem_roots[1]: must not contain a NUL character"},
       }) {
    SCOPED_TRACE(c.pointer);
    EXPECT_EQ(issuesOf(withMember(minimalScenario(), c.pointer, c.value)),
              std::vector<std::string>{c.issue});
  }
}

}  // namespace
}  // namespace rea::evidence::testing
