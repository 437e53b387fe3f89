// The replay server's pure parts: the plan parser (B §3.8 defaults), route matching (B §8.2
// rules 3-4) and the protocol recorder (B §8.1 cap, B §4.8 truncation).

#include <capnp/message.h>
#include <gtest/gtest.h>
#include <kj/debug.h>
#include <kj/time.h>
#include <nlohmann/json.hpp>

#include "helpers/replay/protocol-recorder.h"
#include "helpers/replay/replay-plan.h"
#include "helpers/replay/route-matcher.h"
#include "helpers/replay/standalone.h"

namespace rea::helper {
namespace {

using evidence::Json;

ReplayPlan plan(const char* json) {
  // As the tests write plans: scenario JSON, through the typed plan the supervisor sends.
  return replayPlanFromJson(Json::parse(json));
}

std::string failureOf(const char* json) {
  std::string message;
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { plan(json); })) {
    message = e->getDescription().cStr();
  }
  return message;
}

std::string typedFailureOf(kj::FunctionParam<void(schema::ReplayPlan::HttpRoute::Builder)> edit) {
  // One route, GET / 200, changed by `edit`, read as the helper reads a ReplayConfig's plan.
  capnp::MallocMessageBuilder message;
  auto typed = message.initRoot<schema::ReplayPlan>();
  auto route = typed.initHttp(1)[0];
  route.setMethod("GET");
  route.setPath("/");
  route.setStatus(200);
  route.setMaxCalls(1);
  edit(route);
  std::string failure;
  KJ_IF_MAYBE (e, kj::runCatchingExceptions([&]() { readReplayPlan(typed.asReader()); })) {
    failure = e->getDescription().cStr();
  }
  return failure;
}

class FakeClock final : public kj::MonotonicClock {
 public:
  kj::TimePoint now() const override {
    return kj::origin<kj::TimePoint>() + nowNs * kj::NANOSECONDS;
  }
  int64_t nowNs = 1000;
};

TEST(ReplayPlan, MissingMembersTakeTheDefaults) {
  ReplayPlan p = plan(R"({"http":[{"method":"GET","path":"/a","status":200,"body":"x"}],
                          "websocket_connections":[{"messages":[{"data":"m"}]}]})");
  ASSERT_EQ(p.http.size(), 1u);
  EXPECT_EQ(p.http[0].maxCalls, 1u);
  EXPECT_EQ(p.http[0].delayMs, 0u);
  EXPECT_FALSE(p.http[0].disconnect);
  EXPECT_FALSE(p.http[0].requestBody.has_value());
  EXPECT_TRUE(p.http[0].requestHeaders.empty());
  EXPECT_TRUE(p.websocketMessages.empty());
  ASSERT_EQ(p.websocketConnections.size(), 1u);
  EXPECT_EQ(p.websocketConnections[0].messages[0].delayMs, 0u);
  EXPECT_FALSE(p.websocketConnections[0].disconnectAfter);
  EXPECT_TRUE(plan("{}").http.empty());
}

TEST(ReplayPlan, HeadersKeepTheirDeclarationOrder) {
  ReplayPlan p = plan(R"({"http":[{"method":"GET","path":"/a","status":200,"body":"",
                          "response_headers":{"Z-Last":"1","A-First":"2"}}]})");
  ASSERT_EQ(p.http[0].responseHeaders.size(), 2u);
  EXPECT_EQ(p.http[0].responseHeaders[0].first, "Z-Last");
  EXPECT_EQ(p.http[0].responseHeaders[1].first, "A-First");
}

TEST(ReplayPlan, WrongTypesAndUnsendableHeadersAreRefusedWithTheirPath) {
  // A standalone request's JSON goes through the scenario parser, which names the path.
  EXPECT_NE(failureOf(R"({"http":[{"method":"GET","path":"/a","status":"200","body":""}]})")
                .find("http[0].status"),
            std::string::npos);
  EXPECT_NE(failureOf(R"({"http":[{"path":"/a","status":200,"body":""}]})").find("http[0].method"),
            std::string::npos);
  EXPECT_NE(failureOf(R"({"websocket_connections":[{"messages":[{"delay_ms":5}]}]})")
                .find("websocket_connections[0].messages[0].data"),
            std::string::npos);
  // A typed plan is a claim: what the server could not send is refused, with its plan path.
  auto responseHeader = [](const char* name, const char* value) {
    return [=](schema::ReplayPlan::HttpRoute::Builder route) {
      auto header = route.initResponseHeaders(1)[0];
      header.setName(name);
      header.setValue(value);
    };
  };
  std::string badName = typedFailureOf(responseHeader("Bad Name", "x"));
  EXPECT_NE(badName.find("HTTP token"), std::string::npos);
  EXPECT_NE(badName.find("http[0].response_headers"), std::string::npos);
  EXPECT_NE(typedFailureOf(responseHeader("X", "a\r\nInjected: 1")).find("CR or LF"),
            std::string::npos);
  std::string status = typedFailureOf([](auto route) { route.setStatus(600); });
  EXPECT_NE(status.find("http[0].status"), std::string::npos);
  EXPECT_NE(typedFailureOf([](auto route) { route.setStatus(99); }).find("status out of range"),
            std::string::npos);
  EXPECT_EQ(typedFailureOf([](auto) {}), "");
}

TEST(ReplayPlan, LimitsReadOnlyTheProtocolKeys) {
  ReplayLimits l =
      replayJobConfigFromJson(
          Json::parse(R"({"limits":{"protocol_events":7,"connections":2,"output_bytes":5}})"))
          .limits;
  EXPECT_EQ(l.protocolEvents, 7u);
  EXPECT_EQ(l.connections, 2u);
  EXPECT_EQ(l.protocolBodyBytes, 1000000u);
}

TEST(RouteMatcher, FirstFittingRouteWinsAndExhaustsWithoutFallingThrough) {
  ReplayPlan p = plan(R"({"http":[
      {"method":"GET","path":"/a","status":200,"body":"1","request_headers":{"X-K":"v"}},
      {"method":"GET","path":"/a","status":200,"body":"2"},
      {"method":"GET","path":"/a","status":200,"body":"3"}]})");
  RouteMatcher m(p.http);
  std::vector<RequestHeader> withHeader = {{"x-k", "v"}};
  auto first = m.match("GET", "/a", withHeader, "");
  EXPECT_EQ(first.verdict, RouteMatcher::Verdict::MATCHED);
  EXPECT_EQ(first.route->body, "1");
  EXPECT_EQ(m.match("GET", "/a", withHeader, "").verdict, RouteMatcher::Verdict::EXHAUSTED);
  // Without the header the first route does not fit: the second answers, then is exhausted
  // and the identical third is never reached.
  EXPECT_EQ(m.match("GET", "/a", {}, "").route->body, "2");
  auto again = m.match("GET", "/a", {}, "");
  EXPECT_EQ(again.verdict, RouteMatcher::Verdict::EXHAUSTED);
  EXPECT_EQ(again.route->body, "2");
  EXPECT_EQ(m.calls(2), 0u);
  EXPECT_EQ(m.match("POST", "/a", {}, "").verdict, RouteMatcher::Verdict::UNMATCHED);
}

TEST(RouteMatcher, HeadersJoinRepeatedValuesInOrder) {
  std::vector<RequestHeader> headers = {{"Accept", "a"}, {"X-Other", "o"}, {"accept", "b"}};
  EXPECT_EQ(joinedHeader(headers, "ACCEPT").value_or("<none>"), "a, b");
  EXPECT_EQ(joinedHeader(headers, "x-other").value_or("<none>"), "o");
  EXPECT_FALSE(joinedHeader(headers, "missing").has_value());
}

TEST(RouteMatcher, PathDropsQueryFragmentAndAbsoluteFormAuthority) {
  EXPECT_EQ(pathWithoutQuery("/a/b?x=1"), "/a/b");
  EXPECT_EQ(pathWithoutQuery("/a#frag"), "/a");
  EXPECT_EQ(pathWithoutQuery("http://127.0.0.1:8080/p?q"), "/p");
  EXPECT_EQ(pathWithoutQuery("http://127.0.0.1:8080"), "/");
  EXPECT_EQ(pathWithoutQuery("/"), "/");
}

TEST(RouteMatcher, StatusReasonsAreThoseOfNode) {
  EXPECT_STREQ(statusReason(200), "OK");
  EXPECT_STREQ(statusReason(409), "Conflict");
  EXPECT_STREQ(statusReason(413), "Payload Too Large");
  EXPECT_STREQ(statusReason(299), "Unknown");
}

TEST(ProtocolRecorder, SequencesEventsAndStampsThemWithTheClock) {
  FakeClock clock;
  ProtocolRecorder recorder(10, clock);
  EXPECT_EQ(recorder.originNs(), 1000u);
  clock.nowNs = 5000;
  recorder.record(ProtocolEvent::Protocol::HTTP, ProtocolEvent::Direction::REQUEST,
                  std::string("GET"), std::string("/"), "", ProtocolEvent::Outcome::MATCHED);
  clock.nowNs = 7000;
  recorder.record(ProtocolEvent::Protocol::WEBSOCKET, ProtocolEvent::Direction::SENT, std::nullopt,
                  std::string("/ws"), "m", ProtocolEvent::Outcome::MATCHED);
  auto first = recorder.takeEvents();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].atNs, 5000u);
  EXPECT_EQ(first[1].atNs, 7000u);
  EXPECT_EQ(first[1].sequence, 1u);
  recorder.record(ProtocolEvent::Protocol::HTTP, ProtocolEvent::Direction::RESPONSE,
                  std::string("GET"), std::string("/"), "x", ProtocolEvent::Outcome::MATCHED);
  auto second = recorder.takeEvents();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].sequence, 2u);  // counting goes on across batches
  EXPECT_TRUE(recorder.takeEvents().empty());
}

TEST(ProtocolRecorder, DropsEventsBeyondTheCapAndSaysSo) {
  FakeClock clock;
  ProtocolRecorder recorder(2, clock);
  int notified = 0;
  recorder.setListener([&notified]() { ++notified; });
  for (int i = 0; i < 5; ++i) {
    recorder.record(ProtocolEvent::Protocol::HTTP, ProtocolEvent::Direction::REQUEST,
                    std::string("GET"), std::string("/"), "", ProtocolEvent::Outcome::UNMATCHED);
  }
  EXPECT_EQ(recorder.takeEvents().size(), 2u);
  EXPECT_EQ(notified, 2);
  EXPECT_EQ(recorder.droppedCount(), 3u);
  EXPECT_TRUE(recorder.truncation().eventCap);
  EXPECT_FALSE(recorder.truncation().connectionCap);
  recorder.markConnectionCap();
  EXPECT_TRUE(recorder.truncation().connectionCap);
}

TEST(ProtocolRecorder, EnumNamesAreTheSpecsValues) {
  EXPECT_STREQ(protocolName(ProtocolEvent::Protocol::WEBSOCKET), "websocket");
  EXPECT_STREQ(directionName(ProtocolEvent::Direction::RECEIVED), "received");
  EXPECT_STREQ(outcomeName(ProtocolEvent::Outcome::SCRIPT_EXHAUSTED), "script_exhausted");
  EXPECT_STREQ(outcomeName(ProtocolEvent::Outcome::DISCONNECTED), "disconnected");
}

}  // namespace
}  // namespace rea::helper
