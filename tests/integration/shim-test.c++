// Command shims through the real `rea capture-process` (issue 6): a real /bin/sh target calls
// shims that the real rea-shim helper wrote and answers (SPEC B §7). Every capture is checked
// for validation rules 10 and 11 of B §5.4 on top of the full import.
#include <gtest/gtest.h>

#include <map>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

Json shimScenario(const std::string& script, const Json& shims) {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments", {"-c", script}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              // A bound, not a duration: these captures take ~2 s, but 48 sanitized shim
              // clients beside the other tree's suite (load 14 on two cores) took over 20.
              {"timeout_ms", 120000},
              {"command_shims", shims}};
}

Json route(const Json& arguments, const Json& outputs, const Json& termination, int maxCalls = 1) {
  // A one-element brace list of Json is that element, not an array: wrap a lone output.
  return Json{{"arguments", arguments},
              {"outputs", outputs.is_object() ? Json::array({outputs}) : outputs},
              {"termination", termination},
              {"max_calls", maxCalls}};
}

Json output(int atMs, const std::string& stream, const std::string& data) {
  return Json{{"at_ms", atMs}, {"stream", stream}, {"data", data}};
}

Json exitWith(int code) {
  return Json{{"type", "exit"}, {"code", code}};
}

// Rules 10 and 11 of B §5.4, checked here independently of rea's own validation.
void expectRules10And11(const Json& c) {
  const Json& plan = c["manifest"]["shim_plan"];
  std::map<std::pair<std::string, int64_t>, int64_t> matched;
  for (const Json& event : c["shim_events"]) {
    if (event["outcome"] == "unmatched") {
      EXPECT_TRUE(event["route_index"].is_null()) << event.dump();
      continue;
    }
    ASSERT_TRUE(event["route_index"].is_number_integer()) << event.dump();
    int64_t index = event["route_index"];
    bool exists = false;
    for (const Json& shim : plan) {
      if (shim["name"] == event["command"] && index >= 0 &&
          index < int64_t(shim["routes"].size())) {
        exists = true;
      }
    }
    EXPECT_TRUE(exists) << "rule 10: " << event.dump();
    if (event["outcome"] == "matched") ++matched[{event["command"], index}];
  }
  for (const Json& shim : plan) {
    for (size_t r = 0; r < shim["routes"].size(); ++r) {
      int64_t maxCalls = shim["routes"][r].value("max_calls", 0);
      EXPECT_LE((matched[{shim["name"], int64_t(r)}]), maxCalls) << "rule 11: " << shim["name"];
    }
  }
}

// A valid Evidence record, rules 10 and 11, and nothing left behind; returns the capture.
const Json& expectValidShimCapture(const Sandbox& sandbox, const RunResult& result) {
  EXPECT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  if (!result.output) {
    ADD_FAILURE() << "no JSON output: " << result.stdoutText << result.stderrText;
    static const Json none = Json::object();
    return none;
  }
  auto imported = evidence::importCaptureEvidence(*result.output);
  EXPECT_TRUE(imported.ok()) << imported.detail;
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
  const Json& c = capture(*result.output);
  expectRules10And11(c);
  return c;
}

TEST(Shim, AMatchedCallWritesStdoutAndStderrChunksInOrderAndExitsWithItsCode) {
  Sandbox sandbox;
  Json shims = {{{"name", "tool"},
                 {"routes",
                  {route({"build", "--fast"},
                         {output(0, "stdout", "one\n"), output(30, "stderr", "two\n"),
                          output(60, "stdout", "three\n")},
                         exitWith(3), 2)}}}};
  auto result = sandbox.capture(shimScenario(
      "tool build --fast; echo \"rc=$?\"; tool build --fast 2>/dev/null; echo \"rc=$?\"", shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("one\r\ntwo\r\nthree\r\nrc=3\r\none\r\nthree\r\nrc=3\r\n"), std::string::npos)
      << out;
  ASSERT_EQ(c["shim_events"].size(), 2u) << c["shim_events"].dump();
  for (size_t i = 0; i < 2; ++i) {
    const Json& event = c["shim_events"][i];
    EXPECT_EQ(event["sequence"], i);
    EXPECT_EQ(event["command"], "tool");
    EXPECT_EQ(event["route_index"], 0);
    EXPECT_EQ(event["arguments"], Json({"build", "--fast"}));
    EXPECT_EQ(event["outcome"], "matched");
  }
  EXPECT_LE(c["shim_events"][0]["at_ms"], c["shim_events"][1]["at_ms"]);
  EXPECT_EQ(c["truncated"], false);
  EXPECT_EQ(c["manifest"]["shim_plan"], shims);
}

TEST(Shim, ARouteEndingBySigtermIsSeenByTheShellAs143) {
  Sandbox sandbox;
  Json shims = {{{"name", "die"},
                 {"routes",
                  {route(Json::array(), {output(0, "stdout", "bye\n")},
                         {{"type", "signal"}, {"signal", "SIGTERM"}})}}}};
  auto result = sandbox.capture(shimScenario("die; echo \"rc=$?\"", shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("bye\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=143\r\n"), std::string::npos) << out;
  ASSERT_EQ(c["shim_events"].size(), 1u);
  EXPECT_EQ(c["shim_events"][0]["outcome"], "matched");
}

TEST(Shim, CallsBeyondMaxCallsAreExhaustedAndExit127) {
  Sandbox sandbox;
  Json shims = {
      {{"name", "once"}, {"routes", {route({"x"}, {output(0, "stdout", "ok\n")}, exitWith(0))}}}};
  auto result =
      sandbox.capture(shimScenario("for i in 1 2 3; do once x; echo \"rc=$?\"; done", shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("ok\r\nrc=0\r\nrc=127\r\nrc=127\r\n"), std::string::npos) << out;
  ASSERT_EQ(c["shim_events"].size(), 3u);
  EXPECT_EQ(c["shim_events"][0]["outcome"], "matched");
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(c["shim_events"][i]["outcome"], "exhausted");
    EXPECT_EQ(c["shim_events"][i]["route_index"], 0);
  }
}

TEST(Shim, AnUnmatchedCallExits127AndRecordsNoRoute) {
  Sandbox sandbox;
  Json shims = {{{"name", "tool"}, {"routes", {route({"known"}, Json::array(), exitWith(0))}}}};
  auto result = sandbox.capture(shimScenario("tool unknown arg; echo \"rc=$?\"", shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  EXPECT_NE(concatenatedFrames(*result.output).find("rc=127\r\n"), std::string::npos);
  ASSERT_EQ(c["shim_events"].size(), 1u);
  EXPECT_EQ(c["shim_events"][0]["outcome"], "unmatched");
  EXPECT_TRUE(c["shim_events"][0]["route_index"].is_null());
  EXPECT_EQ(c["shim_events"][0]["arguments"], Json({"unknown", "arg"}));
}

TEST(Shim, ArgumentsWithSpacesQuotesNewlinesStarsEmptyStringsAndNonAsciiMatchExactly) {
  Sandbox sandbox;
  Json arguments = {"a b", "it's \"q\"", "line1\nline2", "*", "", "héllo ✓ 日本"};
  Json shims = {{{"name", "tool"},
                 {"routes", {route(arguments, {output(0, "stdout", "hit\n")}, exitWith(0))}}}};
  std::string script =
      "tool 'a b' \"it's \\\"q\\\"\" \"$(printf 'line1\\nline2')\" '*' '' 'héllo ✓ 日本'; "
      "echo \"rc=$?\"";
  auto result = sandbox.capture(shimScenario(script, shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("hit\r\nrc=0\r\n"), std::string::npos) << out;
  ASSERT_EQ(c["shim_events"].size(), 1u);
  EXPECT_EQ(c["shim_events"][0]["outcome"], "matched");
  EXPECT_EQ(c["shim_events"][0]["arguments"], arguments);
}

TEST(Shim, ACallFromASubdirectoryRecordsThatDirectoryNormalised) {
  Sandbox sandbox;
  Json shims = {
      {{"name", "where"}, {"routes", {route(Json::array(), Json::array(), exitWith(0))}}}};
  auto result = sandbox.capture(
      shimScenario("mkdir -p \"$HOME/sub dir\" && cd \"$HOME/sub dir\" && where; where", shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  ASSERT_EQ(c["shim_events"].size(), 2u);
  EXPECT_EQ(c["shim_events"][0]["working_directory"], "<temporary-root>/home/sub dir");
  EXPECT_EQ(c["shim_events"][0]["outcome"], "matched");
  EXPECT_EQ(c["shim_events"][1]["outcome"], "exhausted");
}

TEST(Shim, ManyShimsAnswerSequentiallyAndConcurrently) {
  Sandbox sandbox;
  Json shims = Json::array();
  const int COUNT = 24;
  for (int i = 0; i < COUNT; ++i) {
    shims.push_back({{"name", "tool" + std::to_string(i)},
                     {"routes",
                      {route(Json::array(), {output(0, "stdout", "<" + std::to_string(i) + ">")},
                             exitWith(i), 2)}}});
  }
  std::string script =
      "i=0; while [ $i -lt 24 ]; do tool$i; echo \" rc=$?\"; i=$((i+1)); done; "
      "i=0; while [ $i -lt 24 ]; do tool$i >/dev/null & i=$((i+1)); done; wait; echo all-done";
  auto result = sandbox.capture(shimScenario(script, shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  for (int i = 0; i < COUNT; ++i) {
    std::string line = "<" + std::to_string(i) + "> rc=" + std::to_string(i) + "\r\n";
    EXPECT_NE(out.find(line), std::string::npos) << line << out;
  }
  EXPECT_NE(out.find("all-done"), std::string::npos);
  ASSERT_EQ(c["shim_events"].size(), size_t(2 * COUNT));
  std::map<std::string, int> calls;
  for (const Json& event : c["shim_events"]) {
    EXPECT_EQ(event["outcome"], "matched") << event.dump();
    ++calls[event["command"]];
  }
  for (int i = 0; i < COUNT; ++i)
    EXPECT_EQ(calls["tool" + std::to_string(i)], 2);
}

TEST(Shim, TheProtocolEventLimitTruncatesTheCaptureButCallsAreStillAnswered) {
  Sandbox sandbox;
  Json shims = {
      {{"name", "tick"},
       {"routes", {route(Json::array(), {output(0, "stdout", "tock\n")}, exitWith(0), 6)}}}};
  Json scenario = shimScenario("for i in 1 2 3 4 5 6; do tick; done; echo end", shims);
  scenario["limits"] = {{"protocol_events", 3}};
  auto result = sandbox.capture(scenario);
  const Json& c = expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("tock\r\ntock\r\ntock\r\ntock\r\ntock\r\ntock\r\nend"), std::string::npos)
      << out;
  EXPECT_EQ(c["shim_events"].size(), 3u);
  EXPECT_EQ(c["truncated"], true);
}

TEST(Shim, WithoutTheLedgerVariableTheClientSaysSoOnStderrAndExits127) {
  Sandbox sandbox;
  Json shims = {{{"name", "tool"}, {"routes", {route(Json::array(), Json::array(), exitWith(0))}}}};
  auto result = sandbox.capture(
      shimScenario("env -u REA_SHIM_LEDGER_URL tool 2>/dev/null; echo \"quiet-rc=$?\"; "
                   "env -u REA_SHIM_LEDGER_URL tool; echo \"rc=$?\"",
                   shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("quiet-rc=127\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("tool: rea shim: "), std::string::npos) << out;
  EXPECT_NE(out.find("rc=127\r\n"), std::string::npos) << out;
  EXPECT_TRUE(c["shim_events"].empty());
}

TEST(Shim, TheLedgerUrlIsInTheTargetEnvironmentWithItsPortNormalised) {
  Sandbox sandbox;
  Json shims = {{{"name", "tool"}, {"routes", {route(Json::array(), Json::array(), exitWith(0))}}}};
  auto result = sandbox.capture(shimScenario("echo \"url=$REA_SHIM_LEDGER_URL\"", shims));
  expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("url=http://127.0.0.1:<port>/invoke\r\n"), std::string::npos) << out;
}

TEST(Shim, ALostShimHelperTruncatesTheCaptureWithAShimResidualUnknown) {
  // The target finds the process listening on its ledger port (by socket inode, so exactly this
  // capture's helper) and kills it; later calls find no ledger and exit 127. Only rea-shim
  // processes are looked into: two forks per process of a busy machine took seconds.
  Sandbox sandbox;
  Json shims = {
      {{"name", "tool"},
       {"routes", {route(Json::array(), {output(0, "stdout", "up\n")}, exitWith(0), 5)}}}};
  std::string script = R"SH(tool
port=${REA_SHIM_LEDGER_URL#http://127.0.0.1:}; port=${port%/invoke}
hex=$(printf '%04X' "$port")
inode=$(awk -v h=":$hex" '$2 ~ (h "$") && $4 == "0A" {print $10}' /proc/net/tcp)
for p in /proc/[0-9]*; do
  read -r name 2>/dev/null < "$p/comm" || continue
  [ "$name" = rea-shim ] || continue
  if ls -l "$p/fd" 2>/dev/null | grep -q "socket:\[$inode\]"; then kill -9 "${p#/proc/}"; fi
done
sleep 0.5; tool; echo "rc=$?")SH";
  auto result = sandbox.capture(shimScenario(script, shims));
  const Json& c = expectValidShimCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("up\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=127\r\n"), std::string::npos) << out;
  EXPECT_EQ(c["truncated"], true);
  EXPECT_EQ(c["exit"]["code"], 0);
  bool shimResidual = false;
  for (const Json& residual : c["residual_unknowns"]) {
    EXPECT_NE(residual["scope"], "terminal") << residual.dump();
    if (residual["scope"] == "shim") {
      shimResidual = true;
      EXPECT_NE(residual["reason"].get<std::string>().find("the shim helper"), std::string::npos)
          << residual.dump();
    }
  }
  EXPECT_TRUE(shimResidual) << c["residual_unknowns"].dump();
}

}  // namespace
}  // namespace rea::test
