// Loopback replay through the real `rea` binary: the target's own clients (curl, rea-ws-client)
// talk to the replay helper through REA_REPLAY_HTTP_URL / REA_REPLAY_WEBSOCKET_URL, and the
// capture records what happened (SPEC B §8, §4.3, §4.6.3, A9). Every request goes to
// 127.0.0.1 only.
#include <gtest/gtest.h>

#include "evidence/evidence-record.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

const std::string WS_CLIENT = REA_BINARY_DIR "/bin/rea-ws-client";
const std::string CURL = "curl -sS --max-time 10 -H 'Expect:' ";

Json replayScenario(const std::string& script, const Json& replay) {
  return Json{
      {"approved", true},
      {"executable", "/bin/sh"},
      {"arguments", {"-c", "U=$REA_REPLAY_HTTP_URL; W=$REA_REPLAY_WEBSOCKET_URL\n" + script}},
      {"working_directory", "/tmp"},
      {"environment", {{"PATH", "/usr/bin:/bin"}}},
      {"timeout_ms", 30000},
      {"replay", replay}};
}

// B §5.4 rule 12, checked here too: a matched HTTP request names a declared route.
void expectRule12(const Json& c) {
  for (const auto& event : c["protocol_events"]) {
    if (event["protocol"] != "http" || event["direction"] != "request" ||
        event["outcome"] != "matched") {
      continue;
    }
    bool declared = false;
    for (const auto& route : c["manifest"]["replay_plan"]["http"]) {
      declared = declared || (route["method"] == event["method"] && route["path"] == event["path"]);
    }
    EXPECT_TRUE(declared) << event.dump();
  }
}

// A valid Evidence record, rule 12, nothing left behind; returns the capture object.
const Json& expectValidReplayCapture(const Sandbox& sandbox, const RunResult& result) {
  EXPECT_EQ(result.exitCode, 0) << result.stdoutText << result.stderrText;
  if (!result.output) throw std::runtime_error("no JSON output: " + result.stdoutText);
  auto imported = evidence::importCaptureEvidence(*result.output);
  EXPECT_TRUE(imported.ok()) << imported.detail;
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
  const Json& c = capture(*result.output);
  expectRule12(c);
  return c;
}

// "direction method path data outcome" per event, for compact expectations.
std::vector<std::string> summary(const Json& c) {
  std::vector<std::string> out;
  for (const auto& e : c["protocol_events"]) {
    std::string method = e["method"].is_null() ? "-" : e["method"].get<std::string>();
    out.push_back(e["direction"].get<std::string>() + " " + method + " " +
                  e["path"].get<std::string>() + " [" + e["data"].get<std::string>() + "] " +
                  e["outcome"].get<std::string>());
  }
  return out;
}

bool hasScope(const Json& c, const std::string& scope) {
  for (const auto& r : c["residual_unknowns"]) {
    if (r["scope"] == scope) return true;
  }
  return false;
}

TEST(Replay, CurlSeesMatchedExhaustedUnmatchedDelayedAndDisconnectedRoutes) {
  Sandbox sandbox;
  Json replay = Json::parse(R"({"http":[
      {"method":"GET","path":"/hello","status":200,"body":"hello body",
       "response_headers":{"X-Replay":"yes"}},
      {"method":"GET","path":"/slow","status":202,"body":"slow","delay_ms":300},
      {"method":"GET","path":"/drop","status":200,"body":"never","disconnect":true}]})");
  std::string script =
      CURL + "-i \"$U/hello?q=1\" | tr -d '\\r' | grep -E '^(HTTP|X-Replay|hello)'; echo\n" + CURL +
      "-o /dev/null -w 'exhausted=%{http_code}\\n' \"$U/hello\"\n" + CURL +
      "-o /dev/null -w 'unmatched=%{http_code}\\n' \"$U/nothing\"\n" + CURL +
      "-w ' slow=%{http_code}\\n' \"$U/slow\"\n" + CURL +
      "\"$U/drop\" >/dev/null 2>&1; echo drop=$?\n";
  auto result = sandbox.capture(replayScenario(script, replay));
  const Json& c = expectValidReplayCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("HTTP/1.1 200 OK\r\nX-Replay: yes\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("hello body\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("exhausted=409\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("unmatched=404\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("slow slow=202\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("drop=52\r\n"), std::string::npos) << out;
  EXPECT_EQ(summary(c), (std::vector<std::string>{
                            "request GET /hello [] matched",
                            "response GET /hello [hello body] matched",
                            "request GET /hello [] script_exhausted",
                            "request GET /nothing [] unmatched",
                            "request GET /slow [] matched",
                            "response GET /slow [slow] matched",
                            "request GET /drop [] matched",
                            "response GET /drop [] disconnected",
                        }));
  const Json& events = c["protocol_events"];
  // The delay is honoured (bucketing can shave at most one bucket off the difference).
  EXPECT_GE(events[5]["at_ms"].get<int64_t>() - events[4]["at_ms"].get<int64_t>(), 290);
  EXPECT_EQ(c["truncated"], false);
  EXPECT_FALSE(hasScope(c, "protocol"));
  EXPECT_TRUE(hasScope(c, "network"));  // "host": the baseline's residual stays
}

TEST(Replay, HeadersAndBodiesSelectTheRouteAndAreNeverRecorded) {
  Sandbox sandbox;
  Json replay = Json::parse(R"({"http":[
      {"method":"POST","path":"/submit","status":201,"body":"accepted",
       "request_headers":{"x-key":"k1"},"request_body":"payload"},
      {"method":"POST","path":"/submit","status":422,"body":"rejected","max_calls":5}]})");
  // The client's secret is assembled at run time, so it is nowhere in the scenario either.
  std::string script =
      "S=$(printf 'cl%sxyz' ient)\n" + CURL +
      "-w ' c=%{http_code}\\n' -H 'X-Key: k1' --data-binary payload \"$U/submit\"\n" + CURL +
      "-w ' c=%{http_code}\\n' -H 'X-Key: k2' --data-binary payload \"$U/submit\"\n" + CURL +
      "-w ' c=%{http_code}\\n' -H \"X-Key: $S\" --data-binary \"$S\" \"$U/submit\"\n" + CURL +
      "-w ' c=%{http_code}\\n' -X POST \"$U/submit\"\n";
  auto result = sandbox.capture(replayScenario(script, replay));
  const Json& c = expectValidReplayCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("accepted c=201\r\nrejected c=422\r\nrejected c=422\r\nrejected c=422\r\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(summary(c), (std::vector<std::string>{
                            "request POST /submit [<redacted-request-body>] matched",
                            "response POST /submit [accepted] matched",
                            "request POST /submit [<redacted-request-body>] matched",
                            "response POST /submit [rejected] matched",
                            "request POST /submit [<redacted-request-body>] matched",
                            "response POST /submit [rejected] matched",
                            "request POST /submit [] matched",
                            "response POST /submit [rejected] matched",
                        }));
  // Not in the protocol events nor on the terminal. (The process samples do show curl's argv,
  // which carries the value here: command lines are recorded by design, B §4.3.)
  EXPECT_EQ(c["protocol_events"].dump().find("clientxyz"), std::string::npos);
  EXPECT_EQ(out.find("clientxyz"), std::string::npos);
}

TEST(Replay, ABodyOverTheLimitIsAnswered413AndTruncatesTheCapture) {
  Sandbox sandbox;
  Json scenario =
      replayScenario(CURL + "-w ' c=%{http_code}\\n' --data-binary small \"$U/up\"\n" + CURL +
                         "-o /dev/null -w 'big=%{http_code}\\n' --data-binary "
                         "0123456789012345678901234567890123456789 \"$U/up\"\n",
                     Json::parse(R"({"http":[{"method":"POST","path":"/up","status":200,"body":"ok",
                              "max_calls":5}]})"));
  scenario["limits"] = {{"protocol_body_bytes", 16}};
  auto result = sandbox.capture(scenario);
  const Json& c = expectValidReplayCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("ok c=200\r\nbig=413\r\n"), std::string::npos) << out;
  EXPECT_EQ(summary(c), (std::vector<std::string>{
                            "request POST /up [<redacted-request-body>] matched",
                            "response POST /up [ok] matched",
                            "request POST /up [<body-over-limit>] unmatched",
                        }));
  EXPECT_EQ(c["truncated"], true);
}

TEST(Replay, WebSocketScriptsReceivedMessagesDisconnectAndTheConnectionLimit) {
  Sandbox sandbox;
  Json replay = Json::parse(R"({"websocket_connections":[
      {"messages":[{"data":"one"},{"data":"two","delay_ms":50}],"disconnect_after":true},
      {"messages":[{"data":"second"}]}]})");
  std::string script = WS_CLIENT + " --send hi \"$W\"; echo rc=$?\n" + WS_CLIENT +
                       " --close-after 1 \"$W\"; echo rc=$?\n" + WS_CLIENT +
                       " \"$W\"; echo rc=$?\n" + WS_CLIENT + " \"$W\"; echo rc=$?\n";
  Json scenario = replayScenario(script, replay);
  scenario["limits"] = {{"connections", 3}};
  auto result = sandbox.capture(scenario);
  const Json& c = expectValidReplayCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("# open\r\none\r\ntwo\r\n# close 1000\r\nrc=0\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("# open\r\nsecond\r\n"), std::string::npos) << out;
  auto events = summary(c);
  // Connection 1: "hi" arrives while the script runs, so only the sent events are ordered.
  std::vector<std::string> sent, received;
  for (const auto& e : events)
    (e.rfind("sent", 0) == 0 ? sent : received).push_back(e);
  EXPECT_EQ(received, (std::vector<std::string>{"received - /ws [hi] matched"}));
  EXPECT_EQ(sent, (std::vector<std::string>{
                      "sent - /ws [one] matched", "sent - /ws [two] matched",
                      "sent - /ws [] disconnected", "sent - /ws [second] matched",
                      "sent - /ws [] script_exhausted",  // connection 3: no script left
                  }));  // connection 4 is over limits.connections: no event
  EXPECT_EQ(c["truncated"], true);
}

TEST(Replay, ALoopbackTargetSeesOnlyLoWhileTheReplayServerAnswers) {
  Sandbox sandbox;
  Policy policy;
  policy.allowExternalNetwork = false;  // A9: loopback needs no approval of host networking
  Json scenario = replayScenario(
      "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' '\n"
      "echo routes=$(tail -n +2 /proc/net/route | wc -l)\n"
      "ip -o link | cut -d' ' -f2\n" +
          CURL + "\"$U/inside\"; echo\n",
      Json::parse(R"({"http":[{"method":"GET","path":"/inside","status":200,
                              "body":"inside"}]})"));
  scenario["network_access"] = "loopback";
  auto result = sandbox.capture(scenario, policy);
  const Json& c = expectValidReplayCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("lo\r\nroutes=0\r\nlo:\r\ninside\r\n"), std::string::npos) << out;
  EXPECT_EQ(summary(c), (std::vector<std::string>{"request GET /inside [] matched",
                                                  "response GET /inside [inside] matched"}));
  EXPECT_FALSE(hasScope(c, "network"));
  for (const auto& sentence : c["limitations"]) {
    EXPECT_EQ(sentence.get<std::string>().find("networking"), std::string::npos) << sentence;
  }
}

TEST(Replay, ALoopbackScenarioWithoutAPlanStillIsolatesTheTarget) {
  Sandbox sandbox;
  Policy policy;
  policy.allowExternalNetwork = false;
  Json scenario =
      replayScenario("echo routes=$(tail -n +2 /proc/net/route | wc -l)\n", Json::object());
  scenario.erase("replay");
  scenario["network_access"] = "loopback";
  auto result = sandbox.capture(scenario, policy);
  const Json& c = expectValidReplayCapture(sandbox, result);
  EXPECT_NE(concatenatedFrames(*result.output).find("routes=0\r\n"), std::string::npos);
  EXPECT_TRUE(c["protocol_events"].empty());
  EXPECT_FALSE(hasScope(c, "network"));
}

TEST(Replay, RequestsTheServerRefusesBecomeAProtocolResidualUnknown) {
  Sandbox sandbox;
  auto result = sandbox.capture(replayScenario(
      CURL + "-o /dev/null -w 'lower=%{http_code}\\n' -X get \"$U/x\"\n",
      Json::parse(R"({"http":[{"method":"GET","path":"/x","status":200,"body":"x"}]})")));
  const Json& c = expectValidReplayCapture(sandbox, result);
  EXPECT_NE(concatenatedFrames(*result.output).find("lower=501\r\n"), std::string::npos);
  EXPECT_TRUE(c["protocol_events"].empty());
  ASSERT_TRUE(hasScope(c, "protocol"));
  EXPECT_EQ(c["truncated"], false);
}

TEST(Replay, ALostReplayHelperTruncatesTheCaptureWithAProtocolResidual) {
  Sandbox sandbox;
  // The target kills its own capture's helper: the rea-replay whose parent is our rea (the
  // parent of the pty helper, which is the shell's parent). No other process is touched.
  std::string script = CURL +
                       "-w ' c=%{http_code}\\n' \"$U/x\"\n"
                       "REA=$(ps -o ppid= -p $PPID | tr -d ' ')\n"
                       "kill -9 $(pgrep -P \"$REA\" -x rea-replay)\n"
                       "sleep 0.3\n" +
                       CURL + "\"$U/x\" >/dev/null 2>&1; echo after=$?\n";
  auto result = sandbox.capture(replayScenario(
      script, Json::parse(R"({"http":[{"method":"GET","path":"/x","status":200,"body":"x",
                                      "max_calls":2}]})")));
  const Json& c = expectValidReplayCapture(sandbox, result);
  std::string out = concatenatedFrames(*result.output);
  EXPECT_NE(out.find("x c=200\r\n"), std::string::npos) << out;
  EXPECT_NE(out.find("after=7\r\n"), std::string::npos) << out;
  EXPECT_EQ(c["truncated"], true);
  bool named = false;
  for (const auto& r : c["residual_unknowns"]) {
    if (r["scope"] == "protocol") {
      named = r["reason"].get<std::string>().find("the replay helper") != std::string::npos;
    }
    EXPECT_NE(r["scope"], "terminal");  // the pty helper was not lost
  }
  EXPECT_TRUE(named) << c["residual_unknowns"].dump();
}

TEST(Replay, AResponseHeaderThatCannotBeSentIsAScenarioError) {
  Sandbox sandbox;
  auto result = sandbox.capture(replayScenario(
      "true", Json::parse(R"({"http":[{"method":"GET","path":"/x","status":200,"body":"",
          "response_headers":{"Bad Name":"v","X-Ok":"a\r\nInjected: yes"}}]})")));
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.stdoutText.find("must be an HTTP token"), std::string::npos)
      << result.stdoutText;
  EXPECT_NE(result.stdoutText.find("must not contain CR, LF or NUL"), std::string::npos)
      << result.stdoutText;
}

}  // namespace
}  // namespace rea::test
