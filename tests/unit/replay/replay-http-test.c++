// The replay server's HTTP behaviour (SPEC B §8.2) driven by a real client, curl.

#include <gtest/gtest.h>

#include "tests/unit/replay-test-support.h"

namespace rea::helper::test {
namespace {

using Direction = ProtocolEvent::Direction;
using Outcome = ProtocolEvent::Outcome;

std::string lastLine(const std::string& out) {
  auto all = lines(out);
  return all.empty() ? "" : all.back();
}

std::string bodyOf(const std::string& out) {
  size_t cut = out.rfind('\n');
  return cut == std::string::npos ? "" : out.substr(0, cut);
}

void expectEvent(const ProtocolEvent& e, Direction direction, const char* method, const char* path,
                 const std::string& data, Outcome outcome) {
  EXPECT_EQ(e.protocol, ProtocolEvent::Protocol::HTTP);
  EXPECT_EQ(directionName(e.direction), std::string(directionName(direction)));
  EXPECT_EQ(e.method.value_or("<null>"), method);
  EXPECT_EQ(e.path.value_or("<null>"), path);
  EXPECT_EQ(e.data, data);
  EXPECT_EQ(outcomeName(e.outcome), std::string(outcomeName(outcome)));
}

TEST(ReplayHttp, MatchedRouteAnswersWithStatusHeadersAndBody) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/hello","status":201,"body":"hi there",
                     "response_headers":{"X-Replay":"yes","Content-Type":"text/plain"}}]})");
  auto r = f.curl({"-i"}, "/hello");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(lastLine(r.out), "201");
  EXPECT_NE(r.out.find("HTTP/1.1 201 Created\r\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("X-Replay: yes\r\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Content-Type: text/plain\r\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\r\n\r\nhi there\n"), std::string::npos) << r.out;

  auto events = f.events();
  ASSERT_EQ(events.size(), 2u);
  expectEvent(events[0], Direction::REQUEST, "GET", "/hello", "", Outcome::MATCHED);
  expectEvent(events[1], Direction::RESPONSE, "GET", "/hello", "hi there", Outcome::MATCHED);
  EXPECT_EQ(events[0].sequence, 0u);
  EXPECT_EQ(events[1].sequence, 1u);
  EXPECT_LE(events[0].atNs, events[1].atNs);
  EXPECT_GE(events[0].atNs, f.server.recorder().originNs());
  EXPECT_FALSE(f.server.recorder().truncation().any());
}

TEST(ReplayHttp, UnmatchedRequestGets404WithAnEmptyBody) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/a","status":200,"body":"a"}]})");
  auto r = f.curl({}, "/b");
  EXPECT_EQ(lastLine(r.out), "404");
  EXPECT_EQ(bodyOf(r.out), "");
  auto events = f.events();
  ASSERT_EQ(events.size(), 1u);
  expectEvent(events[0], Direction::REQUEST, "GET", "/b", "", Outcome::UNMATCHED);
}

TEST(ReplayHttp, ExhaustedRouteGets409AndLaterIdenticalRoutesAreNeverReached) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/once","status":200,"body":"first"},
                              {"method":"GET","path":"/once","status":200,"body":"second"}]})");
  auto first = f.curl({}, "/once");
  auto second = f.curl({}, "/once");
  EXPECT_EQ(bodyOf(first.out), "first");
  EXPECT_EQ(lastLine(second.out), "409");
  EXPECT_EQ(bodyOf(second.out), "");
  auto events = f.events();
  ASSERT_EQ(events.size(), 3u);
  expectEvent(events[2], Direction::REQUEST, "GET", "/once", "", Outcome::SCRIPT_EXHAUSTED);
}

TEST(ReplayHttp, MaxCallsCountsMatchedCallsOnly) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/x","status":200,"body":"ok",
                              "max_calls":2}]})");
  EXPECT_EQ(lastLine(f.curl({}, "/x").out), "200");
  EXPECT_EQ(lastLine(f.curl({}, "/x").out), "200");
  EXPECT_EQ(lastLine(f.curl({}, "/x").out), "409");
  EXPECT_EQ(lastLine(f.curl({}, "/x").out), "409");
}

TEST(ReplayHttp, DelayedRouteAnswersAfterTheDelay) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/slow","status":200,"body":"late",
                              "delay_ms":300}]})");
  auto r = f.curl({}, "/slow");
  EXPECT_EQ(bodyOf(r.out), "late");
  auto events = f.events();
  ASSERT_EQ(events.size(), 2u);
  // The delay is a lower bound by definition (not a speed assertion).
  EXPECT_GE(events[1].atNs - events[0].atNs, 300u * 1000 * 1000);
}

TEST(ReplayHttp, DisconnectRouteDestroysTheConnectionAndRecordsIt) {
  ReplayFixture f(R"({"http":[{"method":"POST","path":"/drop","status":200,"body":"never",
                              "disconnect":true,"delay_ms":50}]})");
  auto r = f.curl({"--data-binary", "payload"}, "/drop");
  EXPECT_EQ(r.exitCode, 52) << r.out;  // curl: empty reply from server
  EXPECT_EQ(r.out.find("never"), std::string::npos);
  auto events = f.events();
  ASSERT_EQ(events.size(), 2u);
  expectEvent(events[0], Direction::REQUEST, "POST", "/drop", "<redacted-request-body>",
              Outcome::MATCHED);
  expectEvent(events[1], Direction::RESPONSE, "POST", "/drop", "", Outcome::DISCONNECTED);
  EXPECT_EQ(f.server.diagnostics().total(), 0u);
}

TEST(ReplayHttp, HeaderNamesMatchCaseInsensitivelyAndValuesExactly) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/h","status":200,"body":"ok",
                     "request_headers":{"X-Token":"Secret-1"},"max_calls":5}]})");
  EXPECT_EQ(lastLine(f.curl({"-H", "x-token: Secret-1"}, "/h").out), "200");
  EXPECT_EQ(lastLine(f.curl({"-H", "X-TOKEN: Secret-1"}, "/h").out), "200");
  EXPECT_EQ(lastLine(f.curl({"-H", "X-Token: secret-1"}, "/h").out), "404");
  EXPECT_EQ(lastLine(f.curl({}, "/h").out), "404");
  // Request headers are never recorded (B §4.6.3).
  for (auto& e : f.events())
    EXPECT_EQ(e.data.find("ecret"), std::string::npos);
}

TEST(ReplayHttp, RepeatedHeadersAreComparedCommaJoined) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/h","status":200,"body":"ok",
                     "request_headers":{"x-multi":"a, b"},"max_calls":5}]})");
  EXPECT_EQ(lastLine(f.curl({"-H", "X-Multi: a", "-H", "x-multi: b"}, "/h").out), "200");
  EXPECT_EQ(lastLine(f.curl({"-H", "X-Multi: a, b"}, "/h").out), "200");
  EXPECT_EQ(lastLine(f.curl({"-H", "X-Multi: b", "-H", "X-Multi: a"}, "/h").out), "404");
  EXPECT_EQ(lastLine(f.curl({"-H", "X-Multi: a"}, "/h").out), "404");
}

TEST(ReplayHttp, RequestBodyMustEqualTheDeclaredBody) {
  ReplayFixture f(R"({"http":[{"method":"POST","path":"/b","status":200,"body":"pong",
                     "request_body":"ping","max_calls":5}]})");
  auto matched = f.curl({"--data-binary", "ping"}, "/b");
  auto other = f.curl({"--data-binary", "pin"}, "/b");
  auto empty = f.curl({"-X", "POST"}, "/b");
  EXPECT_EQ(bodyOf(matched.out), "pong");
  EXPECT_EQ(lastLine(other.out), "404");
  EXPECT_EQ(lastLine(empty.out), "404");
  auto events = f.events();
  ASSERT_EQ(events.size(), 4u);
  expectEvent(events[0], Direction::REQUEST, "POST", "/b", "<redacted-request-body>",
              Outcome::MATCHED);
  expectEvent(events[2], Direction::REQUEST, "POST", "/b", "<redacted-request-body>",
              Outcome::UNMATCHED);
  expectEvent(events[3], Direction::REQUEST, "POST", "/b", "", Outcome::UNMATCHED);
}

TEST(ReplayHttp, BodyOverTheLimitGets413AndTruncates) {
  ReplayLimits limits;
  limits.protocolBodyBytes = 10;
  ReplayFixture f(R"({"http":[{"method":"POST","path":"/up","status":200,"body":"ok",
                     "max_calls":5}]})",
                  limits);
  auto exact = f.curl({"--data-binary", "0123456789"}, "/up");
  EXPECT_EQ(lastLine(exact.out), "200");
  EXPECT_FALSE(f.server.recorder().truncation().any());

  auto over = f.curl({"--data-binary", "0123456789A"}, "/up");
  EXPECT_EQ(lastLine(over.out), "413");
  EXPECT_EQ(bodyOf(over.out), "");
  // Chunked: no Content-Length, so the server finds out while reading.
  auto chunked =
      f.curl({"-H", "Transfer-Encoding: chunked", "--data-binary", std::string(5000, 'x')}, "/up");
  EXPECT_EQ(lastLine(chunked.out), "413");

  auto events = f.events();
  ASSERT_EQ(events.size(), 4u);
  expectEvent(events[2], Direction::REQUEST, "POST", "/up", "<body-over-limit>",
              Outcome::UNMATCHED);
  expectEvent(events[3], Direction::REQUEST, "POST", "/up", "<body-over-limit>",
              Outcome::UNMATCHED);
  EXPECT_TRUE(f.server.recorder().truncation().bodyOverLimit);
  EXPECT_TRUE(f.server.recorder().truncation().any());
  // The route was not consumed by the refused uploads.
  EXPECT_EQ(lastLine(f.curl({"--data-binary", "small"}, "/up").out), "200");
}

TEST(ReplayHttp, QueryStringIsDroppedFromThePath) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/q","status":200,"body":"ok"}]})");
  EXPECT_EQ(lastLine(f.curl({}, "/q?token=abc&x=1").out), "200");
  auto events = f.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].path.value_or(""), "/q");
  EXPECT_EQ(events[1].path.value_or(""), "/q");
}

TEST(ReplayHttp, LowercaseMethodNeverMatches) {
  ReplayFixture f(R"({"http":[{"method":"get","path":"/m","status":200,"body":"ok"}]})");
  EXPECT_EQ(lastLine(f.curl({}, "/m").out), "404");
  // A request that really says "get" is refused by the parser (kj-http, like Node, knows only
  // upper-case methods): no event, a diagnostic, a closed connection.
  EXPECT_EQ(lastLine(f.curl({"-X", "get"}, "/m").out), "501");
  auto events = f.events();
  ASSERT_EQ(events.size(), 1u);
  expectEvent(events[0], Direction::REQUEST, "GET", "/m", "", Outcome::UNMATCHED);
  EXPECT_EQ(f.server.diagnostics().count(ReplayDiagnostic::Kind::BAD_REQUEST), 1u);
}

TEST(ReplayHttp, HeadAndNoContentResponsesCarryNoBody) {
  ReplayFixture f(R"({"http":[{"method":"HEAD","path":"/h","status":200,"body":"abc"},
                              {"method":"GET","path":"/n","status":204,"body":"ignored"}]})");
  auto head = f.curl({"-I"}, "/h");
  EXPECT_NE(head.out.find("HTTP/1.1 200 OK"), std::string::npos) << head.out;
  auto none = f.curl({}, "/n");
  EXPECT_EQ(lastLine(none.out), "204");
  EXPECT_EQ(bodyOf(none.out), "");
  auto events = f.events();
  ASSERT_EQ(events.size(), 4u);
  // The recorded response is the declared body (B §8.2 rule 5), whatever HTTP let through.
  EXPECT_EQ(events[1].data, "abc");
  EXPECT_EQ(events[3].data, "ignored");
}

TEST(ReplayHttp, KeepAliveConnectionServesSeveralRequests) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/k","status":200,"body":"k",
                              "max_calls":3}]})");
  std::string url = f.server.httpUrl() + "/k";
  auto r = f.run({"curl", "-sS", "--max-time", "10", url, url, url});
  EXPECT_EQ(r.out, "kkk");
  EXPECT_EQ(f.events().size(), 6u);
}

TEST(ReplayHttp, ProtocolEventLimitDropsLaterEventsAndTruncates) {
  ReplayLimits limits;
  limits.protocolEvents = 3;
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/e","status":200,"body":"e",
                              "max_calls":10}]})",
                  limits);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(lastLine(f.curl({}, "/e").out), "200");
  auto events = f.events();
  ASSERT_EQ(events.size(), 3u);
  for (size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(events[i].sequence, i);
  EXPECT_EQ(f.server.recorder().recordedCount(), 3u);
  EXPECT_EQ(f.server.recorder().droppedCount(), 3u);
  EXPECT_TRUE(f.server.recorder().truncation().eventCap);
  EXPECT_FALSE(f.server.recorder().truncation().bodyOverLimit);
}

TEST(ReplayHttp, CloseStopsServingAndKeepsTheRecord) {
  ReplayFixture f(R"({"http":[{"method":"GET","path":"/c","status":200,"body":"c"}]})");
  EXPECT_EQ(lastLine(f.curl({}, "/c").out), "200");
  std::string url = f.server.httpUrl() + "/c";
  f.server.close();
  f.server.close();  // idempotent
  auto after = f.run({"curl", "-sS", "--max-time", "5", url});
  EXPECT_EQ(after.exitCode, 7);  // curl: failed to connect
  EXPECT_EQ(f.events().size(), 2u);
}

}  // namespace
}  // namespace rea::helper::test
