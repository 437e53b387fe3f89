// The shim client's pure parts (helpers/shim/client/): its URL, request and reply handling.
// The whole client runs against a real ledger and shell in shim-shell-test.c++.
#include <arpa/inet.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "helpers/shim/client/ledger-request.h"
#include "helpers/shim/client/route-reply.h"

namespace rea::helper {
namespace {

TEST(ShimClientUrl, AcceptsTheHarnessUrl) {
  LedgerAddress address;
  std::string error;
  ASSERT_TRUE(parseLedgerUrl("http://127.0.0.1:40123/invoke", address, error)) << error;
  EXPECT_EQ(address.port, 40123);
  EXPECT_EQ(address.ipv4, htonl(0x7F000001));
  EXPECT_EQ(address.hostPort, "127.0.0.1:40123");
  EXPECT_EQ(address.path, "/invoke");
  ASSERT_TRUE(parseLedgerUrl("http://localhost:1/x", address, error));
  EXPECT_EQ(address.hostPort, "127.0.0.1:1");
}

TEST(ShimClientUrl, RejectsAnythingElseWithAMessage) {
  for (const char* url : {"", "127.0.0.1:80/invoke", "https://127.0.0.1:80/invoke",
                          "http://127.0.0.1/invoke", "http://127.0.0.1:80", "http://example:80/",
                          "http://127.0.0.1:0/invoke", "http://127.0.0.1:65536/invoke",
                          "http://127.0.0.1:8x/invoke", "http://127.0.0.1:/invoke"}) {
    LedgerAddress address;
    std::string error;
    EXPECT_FALSE(parseLedgerUrl(url, address, error)) << url;
    EXPECT_NE(error.find("REA_SHIM_LEDGER_URL"), std::string::npos);
  }
}

TEST(ShimClientRequest, EscapesEveryByteStringIntoValidJson) {
  std::vector<std::string> arguments = {"a b",          "\"q\" 'q'", "x\ny\r\t",  "*",          "",
                                        "\x01\x1F\x7F", "\\",        "é世🙂", "bad\xFF\xC3"};
  std::string body = invocationJson("tool", arguments, "/w/d");
  auto parsed = nlohmann::json::parse(body);  // throws on invalid JSON or UTF-8
  EXPECT_EQ(parsed["command"], "tool");
  EXPECT_EQ(parsed["working_directory"], "/w/d");
  ASSERT_EQ(parsed["arguments"].size(), arguments.size());
  for (size_t i = 0; i + 1 < arguments.size(); ++i)
    EXPECT_EQ(parsed["arguments"][i], arguments[i]);
  EXPECT_EQ(parsed["arguments"].back(), "bad\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_NE(body.find(R"(\u0001\u001f)"), std::string::npos);
}

TEST(ShimClientReply, WaitsForTheWholeBody) {
  HttpReply reply;
  bool done;
  std::string error;
  std::string raw = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 7\r\n";
  ASSERT_TRUE(parseHttpReply(raw, false, reply, done, error));
  EXPECT_FALSE(done);
  raw += "\r\n{\"a\"";
  ASSERT_TRUE(parseHttpReply(raw, false, reply, done, error));
  EXPECT_FALSE(done);
  raw += ":1}";
  ASSERT_TRUE(parseHttpReply(raw, false, reply, done, error));
  EXPECT_TRUE(done);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "{\"a\":1}");
}

TEST(ShimClientReply, ReadsToTheEndWithoutALengthAndRejectsCutAnswers) {
  HttpReply reply;
  bool done;
  std::string error;
  ASSERT_TRUE(parseHttpReply("HTTP/1.0 409 Conflict\r\n\r\nxy", true, reply, done, error));
  EXPECT_TRUE(done);
  EXPECT_EQ(reply.status, 409);
  EXPECT_EQ(reply.body, "xy");
  EXPECT_FALSE(
      parseHttpReply("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", true, reply, done, error));
  EXPECT_FALSE(parseHttpReply("HTTP/1.1 200 OK\r\n", true, reply, done, error));
  EXPECT_FALSE(parseHttpReply("SSH-2.0\r\n\r\n", true, reply, done, error));
  EXPECT_FALSE(parseHttpReply("HTTP/1.1 2x0 OK\r\n\r\n", true, reply, done, error));
  EXPECT_FALSE(
      parseHttpReply("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", true, reply, done, error));
}

TEST(ShimClientRoute, ReadsOutputsAndAnExit) {
  RouteReply route;
  std::string error;
  ASSERT_TRUE(parseRouteReply(
      R"({"arguments":["x"],"outputs":[{"at_ms":10,"stream":"stdout","data":"a\n\u00e9\ud83d\ude42"},
         {"at_ms":5,"stream":"stderr","data":"\"\\\/\b\f\r\t"}],
         "termination":{"type":"exit","code":3},"max_calls":1})",
      route, error))
      << error;
  ASSERT_EQ(route.outputs.size(), 2u);
  EXPECT_EQ(route.outputs[0].fd, 1);
  EXPECT_EQ(route.outputs[0].data, "a\n\xC3\xA9\xF0\x9F\x99\x82");
  EXPECT_EQ(route.outputs[1].fd, 2);
  EXPECT_EQ(route.outputs[1].data, "\"\\/\b\f\r\t");
  EXPECT_FALSE(route.bySignal);
  EXPECT_EQ(route.exitCode, 3);
  EXPECT_EQ(waitBeforeOutputMs(route.outputs, 0), 10u);
  EXPECT_EQ(waitBeforeOutputMs(route.outputs, 1), 0u);  // out of order: no wait
}

TEST(ShimClientRoute, ReadsSignals) {
  for (auto [name, number] : {std::pair{"SIGINT", SIGINT}, std::pair{"SIGTERM", SIGTERM},
                              std::pair{"SIGKILL", SIGKILL}}) {
    RouteReply route;
    std::string error;
    std::string body = std::string(R"({"termination":{"type":"signal","signal":")") + name + "\"}}";
    ASSERT_TRUE(parseRouteReply(body, route, error)) << error;
    EXPECT_TRUE(route.bySignal);
    EXPECT_EQ(route.signal, number);
    EXPECT_TRUE(route.outputs.empty());
  }
}

TEST(ShimClientRoute, RejectsMalformedRoutes) {
  const char* const bad[] = {
      "",
      "[]",
      R"({"outputs":[]})",
      R"({"termination":{"type":"exit"}})",
      R"({"termination":{"type":"exit","code":256}})",
      R"({"termination":{"type":"exit","code":1.5}})",
      R"({"termination":{"type":"signal","signal":"SIGSEGV"}})",
      R"({"termination":{"type":"exit","code":0},"outputs":{}})",
      R"({"termination":{"type":"exit","code":0},"outputs":[{"at_ms":0,"stream":"tty","data":""}]})",
      R"({"termination":{"type":"exit","code":0},"outputs":[{"at_ms":-1,"stream":"stdout","data":""}]})",
      R"({"termination":{"type":"exit","code":0}} x)",
      R"({"termination":{"type":"exit","code":0},"s":"\x"})",
      R"({"termination":{"type":"exit","code":0},"s":"unterminated})",
      R"({"termination":{"type":"exit","code":01}})",
  };
  for (const char* body : bad) {
    RouteReply route;
    std::string error;
    EXPECT_FALSE(parseRouteReply(body, route, error)) << body;
    EXPECT_FALSE(error.empty());
  }
  std::string deep(100, '[');
  RouteReply route;
  std::string error;
  EXPECT_FALSE(parseRouteReply(deep + std::string(100, ']'), route, error));
}

TEST(ShimClientRoute, DecodesLoneSurrogatesAsReplacementCharacters) {
  RouteReply route;
  std::string error;
  ASSERT_TRUE(parseRouteReply(R"({"outputs":[{"at_ms":0,"stream":"stdout","data":"\ud800x\udc00"}],
                                  "termination":{"type":"exit","code":0}})",
                              route, error));
  EXPECT_EQ(route.outputs[0].data, "\xEF\xBF\xBDx\xEF\xBF\xBD");
}

}  // namespace
}  // namespace rea::helper
