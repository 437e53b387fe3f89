// Hostile or broken clients against the replay server: garbage, oversized headers, slow-loris
// headers and bodies, cut-off requests, invalid WebSocket frames, too many connections. Each
// gets an HTTP or WebSocket error and a closed connection, is noted in the diagnostics, and the
// server keeps answering a well-behaved client. Raw sockets to 127.0.0.1 only.

#include <gtest/gtest.h>

#include "tests/unit/replay-test-support.h"

namespace rea::helper::test {
namespace {

using Kind = ReplayDiagnostic::Kind;

constexpr const char* OK_PLAN =
    R"({"http":[{"method":"GET","path":"/ok","status":200,"body":"fine","max_calls":100}],
        "websocket_connections":[{"messages":[]}]})";

struct ReadResult {
  std::string data;
  bool closed = false;  // EOF or reset seen (not a timeout)
};

kj::Own<kj::AsyncIoStream> connectRaw(ReplayFixture& f) {
  auto address =
      f.io.provider->getNetwork().parseAddress("127.0.0.1", f.server.port()).wait(f.io.waitScope);
  return address->connect().wait(f.io.waitScope);
}

kj::Promise<void> readLoop(kj::AsyncIoStream& stream, ReadResult& result, kj::byte* buffer) {
  return stream.tryRead(buffer, 1, 4096)
      .then(
          [&stream, &result, buffer](size_t n) -> kj::Promise<void> {
            if (n == 0) {
              result.closed = true;
              return kj::READY_NOW;
            }
            result.data.append(reinterpret_cast<const char*>(buffer), n);
            return readLoop(stream, result, buffer);
          },
          [&result](kj::Exception&&) { result.closed = true; });
}

kj::Promise<ReadResult> readUntilClosed(ReplayFixture& f, kj::AsyncIoStream& stream,
                                        kj::Duration timeout = 5 * kj::SECONDS) {
  auto result = kj::heap<ReadResult>();
  auto buffer = kj::heapArray<kj::byte>(4096);
  auto& r = *result;
  return readLoop(stream, r, buffer.begin())
      .exclusiveJoin(f.io.provider->getTimer().afterDelay(timeout))
      .then([&r]() { return kj::mv(r); })
      .attach(kj::mv(result), kj::mv(buffer));
}

ReadResult sendRaw(ReplayFixture& f, const std::string& bytes) {
  auto stream = connectRaw(f);
  stream->write(bytes.data(), bytes.size()).catch_([](kj::Exception&&) {}).wait(f.io.waitScope);
  return readUntilClosed(f, *stream).wait(f.io.waitScope);
}

std::string describe(ReplayFixture& f) {
  std::string text;
  for (auto& d : f.server.diagnostics().kept()) {
    text += std::string(diagnosticKindName(d.kind)) + ": " + d.detail + "\n";
  }
  return text;
}

void expectStillServing(ReplayFixture& f) {
  auto r = f.curl({}, "/ok");
  EXPECT_EQ(r.out, "fine\n200");
}

TEST(ReplayRobustness, GarbageBytesGetAnErrorAndAClosedConnection) {
  ReplayFixture f(OK_PLAN);
  auto r = sendRaw(f, std::string("\x16\x03\x01\x00\xa5garbage\r\n\r\n", 16));
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.data.compare(0, 13, "HTTP/1.1 501 "), 0) << r.data;
  auto bad = sendRaw(f, "GET /ok HTTP/1.1\r\nNo colon here\r\n\r\n");
  EXPECT_TRUE(bad.closed);
  EXPECT_EQ(bad.data.compare(0, 13, "HTTP/1.1 400 "), 0) << bad.data;
  EXPECT_EQ(f.server.diagnostics().count(Kind::BAD_REQUEST), 2u);
  expectStillServing(f);
  EXPECT_EQ(f.events().size(), 2u);  // only the well-formed request is a protocol event
}

TEST(ReplayRobustness, OversizedHeadersGet431AndAClosedConnection) {
  ReplayFixture f(OK_PLAN);
  // 100 KB, and 1 MB: larger than kj-http's own header buffer.
  auto huge =
      sendRaw(f, "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(100000, 'a') + "\r\n\r\n");
  auto giant =
      sendRaw(f, "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(1000000, 'a') + "\r\n\r\n");
  EXPECT_TRUE(giant.closed) << giant.data.substr(0, 200);
  EXPECT_EQ(giant.data.compare(0, 13, "HTTP/1.1 431 "), 0) << giant.data.substr(0, 200);
  EXPECT_TRUE(huge.closed) << huge.data.substr(0, 200);
  EXPECT_EQ(huge.data.compare(0, 13, "HTTP/1.1 431 "), 0) << huge.data.substr(0, 100);
  // 20 KB: parsed by kj-http, refused by the server's own limit (16 KiB, as Node).
  auto large =
      sendRaw(f, "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
  EXPECT_TRUE(large.closed) << large.data.substr(0, 200);
  EXPECT_EQ(large.data.compare(0, 13, "HTTP/1.1 431 "), 0) << large.data.substr(0, 100);
  EXPECT_EQ(f.server.diagnostics().count(Kind::HEADERS_TOO_LARGE), 3u) << describe(f);
  EXPECT_TRUE(f.events().empty());
  expectStillServing(f);
}

TEST(ReplayRobustness, SlowLorisHeadersAreCutOffWhileOthersAreServed) {
  ReplayServerOptions options;
  options.headerTimeout = 2 * kj::SECONDS;
  ReplayFixture f(OK_PLAN, {}, options);
  auto slow = connectRaw(f);
  auto& timer = f.io.provider->getTimer();
  // One byte per second, for up to 20 s (the server must cut it off long before).
  std::string request = "GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(20, 'a');
  size_t sent = 0;
  kj::Function<kj::Promise<void>()> trickle = [&]() -> kj::Promise<void> {
    if (sent == request.size()) return kj::READY_NOW;
    return slow->write(request.data() + sent++, 1)
        .then([&]() { return timer.afterDelay(1 * kj::SECONDS); })
        .then([&]() { return trickle(); });
  };
  auto trickling = trickle().catch_([](kj::Exception&&) {}).eagerlyEvaluate(nullptr);
  auto closed = readUntilClosed(f, *slow, 20 * kj::SECONDS);

  expectStillServing(f);  // answered while the slow client is still trickling

  auto r = closed.wait(f.io.waitScope);
  EXPECT_TRUE(r.closed);
  EXPECT_LT(sent, request.size());
  EXPECT_EQ(f.server.diagnostics().count(Kind::HEADER_TIMEOUT), 1u);
  expectStillServing(f);
}

TEST(ReplayRobustness, SlowBodyGets408) {
  ReplayServerOptions options;
  options.bodyTimeout = 1 * kj::SECONDS;
  ReplayFixture f(OK_PLAN, {}, options);
  auto stream = connectRaw(f);
  std::string head = "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab";
  stream->write(head.data(), head.size()).wait(f.io.waitScope);
  auto r = readUntilClosed(f, *stream).wait(f.io.waitScope);
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.data.compare(0, 13, "HTTP/1.1 408 "), 0) << r.data;
  EXPECT_EQ(f.server.diagnostics().count(Kind::BODY_TIMEOUT), 1u);
  EXPECT_TRUE(f.events().empty());
  expectStillServing(f);
}

TEST(ReplayRobustness, ARequestCutOffMidwayIsNoted) {
  ReplayFixture f(OK_PLAN);
  {
    auto stream = connectRaw(f);
    stream->write("GET /ok HT", 10).wait(f.io.waitScope);
    f.settle();
  }  // closed by the client
  auto cutBody = connectRaw(f);
  std::string head = "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab";
  cutBody->write(head.data(), head.size()).wait(f.io.waitScope);
  f.settle();
  cutBody = nullptr;
  f.settle(200 * kj::MILLISECONDS);
  EXPECT_EQ(f.server.diagnostics().count(Kind::INCOMPLETE_REQUEST), 2u) << describe(f);
  EXPECT_TRUE(f.events().empty());
  expectStillServing(f);
}

TEST(ReplayRobustness, InvalidWebSocketFrameGetsClose1002) {
  ReplayFixture f(OK_PLAN);
  auto stream = connectRaw(f);
  std::string handshake =
      "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  stream->write(handshake.data(), handshake.size()).wait(f.io.waitScope);
  // Opcode 3 is reserved: FIN + opcode 3, masked, empty payload.
  const kj::byte frame[] = {0x83, 0x80, 0x01, 0x02, 0x03, 0x04};
  stream->write(frame, sizeof(frame)).wait(f.io.waitScope);
  auto r = readUntilClosed(f, *stream).wait(f.io.waitScope);
  EXPECT_TRUE(r.closed);
  size_t end = r.data.find("\r\n\r\n");
  ASSERT_NE(end, std::string::npos) << r.data;
  EXPECT_EQ(r.data.compare(0, 13, "HTTP/1.1 101 "), 0) << r.data;
  // Close frame: FIN + opcode 8, unmasked, 2-byte payload 1002 (0x03EA).
  EXPECT_EQ(r.data.substr(end + 4), std::string("\x88\x02\x03\xea", 4));
  EXPECT_EQ(f.server.diagnostics().count(Kind::WEBSOCKET_PROTOCOL_ERROR), 1u);
  expectStillServing(f);
}

TEST(ReplayRobustness, TextFrameThatIsNotUtf8GetsClose1007) {
  ReplayFixture f(OK_PLAN);
  auto stream = connectRaw(f);
  std::string handshake =
      "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  stream->write(handshake.data(), handshake.size()).wait(f.io.waitScope);
  // Text frame, masked with a zero mask, payload 0xff (never valid UTF-8).
  const kj::byte frame[] = {0x81, 0x81, 0x00, 0x00, 0x00, 0x00, 0xff};
  stream->write(frame, sizeof(frame)).wait(f.io.waitScope);
  auto r = readUntilClosed(f, *stream).wait(f.io.waitScope);
  size_t end = r.data.find("\r\n\r\n");
  ASSERT_NE(end, std::string::npos) << r.data;
  EXPECT_EQ(r.data.substr(end + 4), std::string("\x88\x02\x03\xef", 4));
  EXPECT_TRUE(f.events().empty());
  EXPECT_EQ(f.server.diagnostics().count(Kind::WEBSOCKET_PROTOCOL_ERROR), 1u);
}

TEST(ReplayRobustness, BadWebSocketHandshakeGets400WithoutUsingAConnectionNumber) {
  ReplayFixture f(R"({"websocket_connections":[{"messages":[{"data":"first"}],
                     "disconnect_after":true}]})");
  auto r = sendRaw(f,
                   "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n");
  EXPECT_EQ(r.data.compare(0, 13, "HTTP/1.1 400 "), 0) << r.data;
  EXPECT_EQ(f.server.diagnostics().count(Kind::BAD_WEBSOCKET_HANDSHAKE), 1u);
  auto ok = f.run({wsClientPath(), "ws://127.0.0.1:" + std::to_string(f.server.port()) + "/ws"});
  EXPECT_EQ(lines(ok.out), (std::vector<std::string>{"# open", "first", "# close 1000"}));
}

TEST(ReplayRobustness, TooManyOpenConnectionsAreClosedAtAccept) {
  ReplayServerOptions options;
  options.maxOpenConnections = 2;
  ReplayFixture f(OK_PLAN, {}, options);
  auto a = connectRaw(f);
  auto b = connectRaw(f);
  auto c = connectRaw(f);
  auto r = readUntilClosed(f, *c).wait(f.io.waitScope);
  EXPECT_TRUE(r.closed);
  EXPECT_TRUE(r.data.empty());
  EXPECT_EQ(f.server.diagnostics().count(Kind::CONNECTION_LIMIT), 1u);
  a = nullptr;
  b = nullptr;
  f.settle();
  expectStillServing(f);
}

TEST(ReplayRobustness, DiagnosticsNeverHoldClientBytes) {
  ReplayFixture f(OK_PLAN);
  sendRaw(f, "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: SECRETVALUE" + std::string(20000, 'a') +
                 "\r\n\r\n");
  sendRaw(f, "SECRETVALUE / HTTP/1.1\r\n\r\n");
  ASSERT_EQ(f.server.diagnostics().total(), 2u);
  for (auto& d : f.server.diagnostics().kept()) {
    EXPECT_EQ(d.detail.find("SECRET"), std::string::npos) << d.detail;
  }
}

}  // namespace
}  // namespace rea::helper::test
