// The ledger's HTTP front against raw requests: what is answered how, and what is recorded.
#include "helpers/shim/shim-ledger-server.h"

#include <kj/async-io.h>
#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "helpers/shim/shim-ledger.h"
#include "helpers/shim/standalone.h"

namespace rea::helper {
namespace {

const char* const LEDGER_PLAN = R"([{"name":"tool","routes":[
    {"arguments":["go"],"outputs":[{"at_ms":0,"stream":"stdout","data":"ok\n"}],
     "termination":{"type":"exit","code":0},"max_calls":5}]}])";

struct Fixture {
  kj::AsyncIoContext io = kj::setupAsyncIo();
  uint64_t clock = 1000;
  ShimLedger ledger{shimPlanFromJson(evidence::Json::parse(LEDGER_PLAN)), 100};
  ShimLedgerServer server{*io.lowLevelProvider, io.provider->getTimer(), ledger,
                          [this]() { return clock++; }};
  uint16_t port = server.start();

  // Sends `raw` on a fresh connection, half-closes, returns everything the server sent back.
  std::string exchange(const std::string& raw) {
    auto address = io.provider->getNetwork().parseAddress("127.0.0.1", port).wait(io.waitScope);
    auto connection = address->connect().wait(io.waitScope);
    connection->write(raw.data(), raw.size()).wait(io.waitScope);
    connection->shutdownWrite();
    return connection->readAllText().wait(io.waitScope).cStr();
  }

  std::string post(const std::string& body, const std::string& path = "/invoke") {
    return exchange("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
                    "Content-Length: " + std::to_string(body.size()) +
                    "\r\nConnection: close\r\n\r\n" + body);
  }
};

int statusOf(const std::string& response) {
  if (response.compare(0, 9, "HTTP/1.1 ") != 0 || response.size() < 12) return -1;
  return std::stoi(response.substr(9, 3));
}

std::string bodyOf(const std::string& response) {
  size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

const std::string GO = R"({"command":"tool","arguments":["go"],"working_directory":"/w"})";

TEST(ShimLedgerServer, AnswersAMatchWith200AndTheRouteJson) {
  Fixture f;
  EXPECT_EQ(f.server.url(), "http://127.0.0.1:" + std::to_string(f.port) + "/invoke");
  std::string response = f.post(GO);
  EXPECT_EQ(statusOf(response), 200) << response;
  EXPECT_NE(response.find("Content-Type: application/json"), std::string::npos) << response;
  EXPECT_EQ(bodyOf(response), routeResponseJson(f.ledger.plan().shims[0].routes[0]));
  ASSERT_EQ(f.ledger.events().size(), 1u);
  EXPECT_EQ(f.ledger.events()[0].atNs, 1000u);  // stamped by the injected clock
  EXPECT_EQ(f.ledger.events()[0].workingDirectory, "/w");
  EXPECT_EQ(f.server.failure(), nullptr);
}

TEST(ShimLedgerServer, AnswersUnmatchedAndExhaustedWith409) {
  Fixture f;
  std::string response =
      f.post(R"({"command":"tool","arguments":["stop"],"working_directory":"/w"})");
  EXPECT_EQ(statusOf(response), 409) << response;
  EXPECT_EQ(nlohmann::json::parse(bodyOf(response))["outcome"], "unmatched");
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(statusOf(f.post(GO)), 200);
  response = f.post(GO);
  EXPECT_EQ(statusOf(response), 409);
  EXPECT_EQ(nlohmann::json::parse(bodyOf(response))["outcome"], "exhausted");
  EXPECT_EQ(f.ledger.events().size(), 7u);
}

TEST(ShimLedgerServer, AnswersOtherMethodsAndPathsWith404WithoutRecording) {
  Fixture f;
  EXPECT_EQ(statusOf(f.exchange("GET /invoke HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")),
            404);
  EXPECT_EQ(statusOf(f.exchange("PUT /invoke HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                                std::to_string(GO.size()) + "\r\nConnection: close\r\n\r\n" + GO)),
            404);
  EXPECT_EQ(statusOf(f.post(GO, "/")), 404);
  EXPECT_EQ(statusOf(f.post(GO, "/invoke/")), 404);
  EXPECT_EQ(statusOf(f.post(GO, "/invoke?x=1")), 404);
  EXPECT_EQ(statusOf(f.post(GO, "/INVOKE")), 404);
  EXPECT_TRUE(f.ledger.events().empty());
}

TEST(ShimLedgerServer, AnswersMalformedInvocationsWith400WithoutRecording) {
  Fixture f;
  for (const char* body : {"", "{", "null", "[]", R"({"command":"tool","arguments":["go"]})",
                           R"({"command":"tool","arguments":"go","working_directory":"/w"})",
                           R"({"command":"tool","arguments":[1],"working_directory":"/w"})",
                           R"({"command":["tool"],"arguments":[],"working_directory":"/w"})"}) {
    EXPECT_EQ(statusOf(f.post(body)), 400) << body;
  }
  EXPECT_TRUE(f.ledger.events().empty());
}

TEST(ShimLedgerServer, Answers400ToBodiesOver64KiBWhateverTheFraming) {
  Fixture f;
  std::string padded = GO;
  padded.insert(padded.size() - 1, std::string(SHIM_REQUEST_BODY_LIMIT - GO.size(), ' '));
  ASSERT_EQ(padded.size(), SHIM_REQUEST_BODY_LIMIT);
  EXPECT_EQ(statusOf(f.post(padded)), 200);  // exactly 64 KiB is allowed

  padded.insert(padded.size() - 1, " ");
  EXPECT_EQ(statusOf(f.post(padded)), 400);  // declared length one byte over

  // Chunked: no declared length, the limit is found while reading.
  std::string chunked =
      "POST /invoke HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
  for (int i = 0; i < 3; ++i) {
    std::string chunk(30000, ' ');
    char size[16];
    snprintf(size, sizeof(size), "%zx", chunk.size());
    chunked += std::string(size) + "\r\n" + chunk + "\r\n";
  }
  chunked += "0\r\n\r\n";
  EXPECT_EQ(statusOf(f.exchange(chunked)), 400);
  EXPECT_EQ(f.ledger.events().size(), 1u);
}

TEST(ShimLedgerServer, SurvivesBrokenHttpAndKeepsServing) {
  Fixture f;
  EXPECT_EQ(statusOf(f.exchange("this is not http\r\n\r\n")), 400);
  EXPECT_EQ(statusOf(f.exchange("BREW /invoke HTTP/1.1\r\nHost: x\r\n\r\n")), 400);
  EXPECT_EQ(statusOf(f.exchange("POST /invoke HTTP/1.1\r\nContent-Length: x\r\n\r\n")), 400);
  // A body cut short by the client: no answer can be valid, nothing is recorded.
  f.exchange("POST /invoke HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"command\"");
  f.exchange("");
  EXPECT_TRUE(f.ledger.events().empty());
  EXPECT_EQ(statusOf(f.post(GO)), 200);
  EXPECT_EQ(f.ledger.events().size(), 1u);
  EXPECT_EQ(f.server.failure(), nullptr);
}

TEST(ShimLedgerServer, AnswersSeveralRequestsOnOneConnection) {
  Fixture f;
  std::string one =
      "POST /invoke HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(GO.size()) +
      "\r\n\r\n" + GO;
  std::string response = f.exchange(one + one);
  EXPECT_EQ(statusOf(response), 200);
  EXPECT_NE(response.find("HTTP/1.1 200", 1), std::string::npos) << response;
  EXPECT_EQ(f.ledger.events().size(), 2u);
}

TEST(ShimLedgerServer, StartsOnceOnly) {
  Fixture f;
  EXPECT_NE(kj::runCatchingExceptions([&]() { f.server.start(); }), nullptr);
  ShimLedger ledger{ShimPlan{}, 1};
  ShimLedgerServer fresh{*f.io.lowLevelProvider, f.io.provider->getTimer(), ledger};
  EXPECT_NE(kj::runCatchingExceptions([&]() { fresh.port(); }), nullptr);
}

}  // namespace
}  // namespace rea::helper
