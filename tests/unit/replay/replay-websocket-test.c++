// The replay server's WebSocket behaviour (SPEC B §8.3) driven by a real client, rea-ws-client.

#include <gtest/gtest.h>

#include "tests/unit/replay-test-support.h"

namespace rea::helper::test {
namespace {

using Direction = ProtocolEvent::Direction;
using Outcome = ProtocolEvent::Outcome;
using Strings = std::vector<std::string>;

ProcessResult wsClient(ReplayFixture& f, Strings options, const std::string& path = "/ws") {
  Strings argv = {wsClientPath()};
  for (auto& o : options)
    argv.push_back(o);
  argv.push_back("ws://127.0.0.1:" + std::to_string(f.server.port()) + path);
  return f.run(argv);
}

void expectWsEvent(const ProtocolEvent& e, Direction direction, const std::string& data,
                   Outcome outcome) {
  EXPECT_EQ(e.protocol, ProtocolEvent::Protocol::WEBSOCKET);
  EXPECT_EQ(directionName(e.direction), std::string(directionName(direction)));
  EXPECT_FALSE(e.method.has_value());
  EXPECT_EQ(e.path.value_or("<null>"), "/ws");
  EXPECT_EQ(e.data, data);
  EXPECT_EQ(outcomeName(e.outcome), std::string(outcomeName(outcome)));
}

TEST(ReplayWebSocket, ScriptedMessagesArriveAfterTheirDelaysThenTheServerCloses) {
  ReplayFixture f(R"({"websocket_connections":[{"messages":[{"data":"hello"},
                     {"data":"world","delay_ms":200}],"disconnect_after":true}]})");
  auto r = wsClient(f, {});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_EQ(lines(r.out), (Strings{"# open", "hello", "world", "# close 1000"}));
  f.settle();
  auto events = f.events();
  ASSERT_EQ(events.size(), 3u);
  expectWsEvent(events[0], Direction::SENT, "hello", Outcome::MATCHED);
  expectWsEvent(events[1], Direction::SENT, "world", Outcome::MATCHED);
  expectWsEvent(events[2], Direction::SENT, "", Outcome::DISCONNECTED);
  EXPECT_GE(events[1].atNs - events[0].atNs, 200u * 1000 * 1000);  // the delay, by definition
  EXPECT_EQ(f.server.diagnostics().total(), 0u);
}

TEST(ReplayWebSocket, LegacyMessagesGoToEveryConnectionWithoutClosing) {
  ReplayFixture f(R"({"websocket_messages":["a","b"]})");
  for (int i = 0; i < 2; ++i) {
    auto r = wsClient(f, {"--close-after", "2"});
    EXPECT_EQ(lines(r.out), (Strings{"# open", "a", "b", "# close 1000"}));
  }
  f.settle();
  auto events = f.events();
  ASSERT_EQ(events.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    expectWsEvent(events[i], Direction::SENT, i % 2 == 0 ? "a" : "b", Outcome::MATCHED);
  }
}

TEST(ReplayWebSocket, MessagesFromTheClientAreRecordedAsReceived) {
  ReplayFixture f(R"({"websocket_connections":[{"messages":[]}]})");
  auto r = wsClient(f, {"--send", "hi", "--send-binary", "caf\xc3", "--close-after", "0"});
  EXPECT_EQ(lines(r.out), (Strings{"# open", "# close 1000"}));
  f.settle();
  auto events = f.events();
  ASSERT_EQ(events.size(), 2u);
  expectWsEvent(events[0], Direction::RECEIVED, "hi", Outcome::MATCHED);
  // Binary payloads are decoded as UTF-8 with U+FFFD for ill-formed bytes.
  expectWsEvent(events[1], Direction::RECEIVED, "caf\xef\xbf\xbd", Outcome::MATCHED);
}

TEST(ReplayWebSocket, DisconnectAfterWithoutMessagesClosesAtOnce) {
  ReplayFixture f(R"({"websocket_connections":[{"messages":[],"disconnect_after":true}]})");
  auto r = wsClient(f, {});
  EXPECT_EQ(lines(r.out), (Strings{"# open", "# close 1000"}));
  f.settle();
  auto events = f.events();
  ASSERT_EQ(events.size(), 1u);
  expectWsEvent(events[0], Direction::SENT, "", Outcome::DISCONNECTED);
}

TEST(ReplayWebSocket, AConnectionWithoutAScriptIsExhaustedAndTerminated) {
  ReplayFixture f(R"({"websocket_connections":[{"messages":[{"data":"one"}],
                     "disconnect_after":true}]})");
  auto first = wsClient(f, {});
  auto second = wsClient(f, {});
  EXPECT_EQ(lines(first.out), (Strings{"# open", "one", "# close 1000"}));
  EXPECT_EQ(lines(second.out), (Strings{"# open", "# disconnected"}));
  f.settle();
  auto events = f.events();
  ASSERT_EQ(events.size(), 3u);
  expectWsEvent(events[2], Direction::SENT, "", Outcome::SCRIPT_EXHAUSTED);
  EXPECT_FALSE(f.server.recorder().truncation().any());
}

TEST(ReplayWebSocket, ConnectionsBeyondTheLimitAreTerminatedWithoutAnEvent) {
  ReplayLimits limits;
  limits.connections = 1;
  ReplayFixture f(R"({"websocket_messages":["m"]})", limits);
  auto first = wsClient(f, {"--close-after", "1"});
  auto second = wsClient(f, {"--close-after", "1"});
  EXPECT_EQ(lines(first.out), (Strings{"# open", "m", "# close 1000"}));
  EXPECT_EQ(lines(second.out), (Strings{"# open", "# disconnected"}));
  f.settle();
  EXPECT_EQ(f.events().size(), 1u);
  EXPECT_TRUE(f.server.recorder().truncation().connectionCap);
  // HTTP is not limited by limits.connections.
  EXPECT_EQ(lines(f.curl({}, "/any").out).back(), "404");
}

TEST(ReplayWebSocket, UpgradeOutsideWsIsRefusedWithoutAnEvent) {
  ReplayFixture f(R"({"websocket_messages":["m"]})");
  auto r = wsClient(f, {}, "/other");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out.find("# open"), std::string::npos) << r.out;
  f.settle();
  EXPECT_TRUE(f.events().empty());
  EXPECT_EQ(f.server.diagnostics().total(), 0u);
  // The refusal does not use up a connection number: the next /ws client gets connection 1.
  auto ok = wsClient(f, {"--close-after", "1"});
  EXPECT_EQ(lines(ok.out), (Strings{"# open", "m", "# close 1000"}));
}

TEST(ReplayWebSocket, QueryStringOnWsIsAccepted) {
  ReplayFixture f(R"({"websocket_messages":["q"]})");
  auto r = wsClient(f, {"--close-after", "1"}, "/ws?session=1");
  EXPECT_EQ(lines(r.out), (Strings{"# open", "q", "# close 1000"}));
}

TEST(ReplayWebSocket, MessageOverTheBodyLimitClosesWith1009) {
  ReplayLimits limits;
  limits.protocolBodyBytes = 8;
  ReplayFixture f(R"({"websocket_connections":[{"messages":[]}]})", limits);
  auto r = wsClient(f, {"--send", "12345678", "--send", "123456789"});
  EXPECT_EQ(lines(r.out), (Strings{"# open", "# close 1009"}));
  f.settle();
  auto events = f.events();
  ASSERT_EQ(events.size(), 1u);
  expectWsEvent(events[0], Direction::RECEIVED, "12345678", Outcome::MATCHED);
  EXPECT_EQ(f.server.diagnostics().count(ReplayDiagnostic::Kind::WEBSOCKET_MESSAGE_TOO_LARGE), 1u);
}

TEST(ReplayWebSocket, CloseTerminatesOpenClients) {
  ReplayFixture f(R"({"websocket_messages":["x"]})");
  auto client = runProcess(
      f.io, {wsClientPath(), "ws://127.0.0.1:" + std::to_string(f.server.port()) + "/ws"});
  // Serve until the script has run on the open connection.
  for (int i = 0; i < 500 && f.events().empty(); ++i)
    f.settle(10 * kj::MILLISECONDS);
  ASSERT_EQ(f.all.size(), 1u);
  EXPECT_EQ(f.server.openConnections(), 1u);
  f.server.close();
  auto r = client.wait(f.io.waitScope);
  EXPECT_EQ(lines(r.out), (Strings{"# open", "x", "# disconnected"}));
  EXPECT_EQ(f.server.openConnections(), 0u);
}

}  // namespace
}  // namespace rea::helper::test
