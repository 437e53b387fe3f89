// The loopback replay server's cost: requests per second through it from one keep-alive kj-http
// client (a matched route, so each request records two protocol events), and the time it adds
// to a capture's start — creating, listening and closing the server, and creating the loopback
// network namespace of network_access "loopback", and the whole helper as a capture starts and
// ends it (supervisor ReplayLink: spawn, start, finish, reap). Median of RUNS rounds each
// (default 5); 127.0.0.1 only.
// Run from bench/run.sh or directly. Usage: replay-bench [RUNS]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <kj/async-io.h>
#include <kj/compat/http.h>
#include <kj/debug.h>
#include <kj/time.h>
#include <nlohmann/json.hpp>

#include "bench/support/arguments.h"
#include "helpers/replay/loopback-netns.h"
#include "helpers/replay/replay-plan.h"
#include "helpers/replay/replay-server.h"
#include "helpers/replay/standalone.h"
#include "supervisor/links/replay-link.h"

namespace {

using rea::helper::ReplayLimits;
using rea::helper::ReplayServer;

constexpr int REQUESTS = 2000;
constexpr int STARTS = 50;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

template <typename F>
double seconds(F&& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

rea::helper::ReplayPlan benchPlan() {
  rea::helper::ReplayPlan plan = rea::helper::replayPlanFromJson(rea::evidence::Json::parse(
      R"({"http":[{"method":"GET","path":"/bench","status":200,"body":"{\"ok\":true}",
          "response_headers":{"Content-Type":"application/json"}}]})"));
  // More calls than a scenario may declare (max_calls ≤ 100): the bench measures the server.
  plan.http[0].maxCalls = 100000;
  return plan;
}

kj::Promise<void> sendRequests(kj::HttpClient& client, const kj::HttpHeaders& headers,
                               int remaining) {
  if (remaining == 0) return kj::READY_NOW;
  auto request = client.request(kj::HttpMethod::GET, "/bench", headers);
  return request.response.then([&client, &headers, remaining](kj::HttpClient::Response&& r) {
    KJ_REQUIRE(r.statusCode == 200, r.statusCode);
    return r.body->readAllText()
        .attach(kj::mv(r.body))
        .then([&client, &headers, remaining](kj::String) {
          return sendRequests(client, headers, remaining - 1);
        });
  });
}

double requestsPerSecond(kj::AsyncIoContext& io) {
  ReplayLimits limits;
  limits.protocolEvents = 2 * REQUESTS;
  ReplayServer server(io, benchPlan(), limits, kj::systemPreciseMonotonicClock());
  uint16_t port = server.listen();
  auto address = io.provider->getNetwork().parseAddress("127.0.0.1", port).wait(io.waitScope);
  kj::HttpHeaderTable table;
  auto client = kj::newHttpClient(io.provider->getTimer(), table, *address);
  kj::HttpHeaders headers(table);
  headers.set(kj::HttpHeaderId::HOST, "127.0.0.1");
  double elapsed = seconds([&]() { sendRequests(*client, headers, REQUESTS).wait(io.waitScope); });
  KJ_REQUIRE(server.recorder().recordedCount() == 2u * REQUESTS);
  return REQUESTS / elapsed;
}

// The floor: a bare kj-http service answering the same response, no matching, no recording.
class FixedService final : public kj::HttpService {
 public:
  explicit FixedService(const kj::HttpHeaderTable& table) : table_(table) {}
  kj::Promise<void> request(kj::HttpMethod, kj::StringPtr, const kj::HttpHeaders&,
                            kj::AsyncInputStream&, Response& response) override {
    kj::HttpHeaders headers(table_);
    headers.set(kj::HttpHeaderId::CONTENT_TYPE, "application/json");
    static constexpr char BODY[] = "{\"ok\":true}";
    auto body = response.send(200, "OK", headers, sizeof(BODY) - 1);
    auto write = body->write(BODY, sizeof(BODY) - 1);
    return write.attach(kj::mv(body));
  }

 private:
  const kj::HttpHeaderTable& table_;
};

double baselinePerSecond(kj::AsyncIoContext& io) {
  kj::HttpHeaderTable table;
  FixedService service(table);
  kj::HttpServer server(io.provider->getTimer(), table, service);
  auto address = io.provider->getNetwork().parseAddress("127.0.0.1", 0).wait(io.waitScope);
  auto listener = address->listen();
  auto listening = server.listenHttp(*listener).eagerlyEvaluate(nullptr);
  auto target =
      io.provider->getNetwork().parseAddress("127.0.0.1", listener->getPort()).wait(io.waitScope);
  auto client = kj::newHttpClient(io.provider->getTimer(), table, *target);
  kj::HttpHeaders headers(table);
  headers.set(kj::HttpHeaderId::HOST, "127.0.0.1");
  double elapsed = seconds([&]() { sendRequests(*client, headers, REQUESTS).wait(io.waitScope); });
  return REQUESTS / elapsed;
}

double startMicroseconds(kj::AsyncIoContext& io) {
  double total = seconds([&]() {
    for (int i = 0; i < STARTS; ++i) {
      ReplayServer server(io, benchPlan(), {}, kj::systemPreciseMonotonicClock());
      server.listen();
      server.close();
    }
  });
  return total / STARTS * 1e6;
}

double netnsMicroseconds() {
  double total = seconds([&]() {
    for (int i = 0; i < STARTS; ++i) {
      auto result = rea::helper::createLoopbackNetns();
      KJ_REQUIRE(result.netns != nullptr, result.detail);
    }
  });
  return total / STARTS * 1e6;
}

// What a capture pays for the helper: spawn rea-replay (from this binary's directory, build/bin),
// start (listen; with `loopback` also make and enter the namespace, and open it), finish (close,
// last batch, summary) and reap.
constexpr int HELPER_STARTS = 10;

double helperMilliseconds(kj::AsyncIoContext& io, bool loopback) {
  double total = seconds([&]() {
    for (int i = 0; i < HELPER_STARTS; ++i) {
      rea::supervisor::ReplayLink link(io);
      rea::supervisor::ReplayLaunch launch;
      launch.plan.http.resize(1);
      launch.plan.http[0].method = "GET";
      launch.plan.http[0].path = "/bench";
      launch.loopbackNetns = loopback;
      link.start(kj::mv(launch)).wait(io.waitScope);
      link.finish().wait(io.waitScope);
      KJ_REQUIRE(!link.record().fault, link.record().fault->reason);
    }
  });
  return total / HELPER_STARTS * 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "replay-bench [runs]";
  auto arguments = rea::bench::parseArguments(argc, argv, usage);
  rea::bench::rejectFlags(arguments, usage);
  auto io = kj::setupAsyncIo();
  std::vector<double> rates, baselines, starts, namespaces, helpers, loopbackHelpers;
  for (int round = 0; round < arguments.runs; ++round) {
    rates.push_back(requestsPerSecond(io));
    baselines.push_back(baselinePerSecond(io));
    starts.push_back(startMicroseconds(io));
    namespaces.push_back(netnsMicroseconds());
    helpers.push_back(helperMilliseconds(io, false));
    loopbackHelpers.push_back(helperMilliseconds(io, true));
  }
  std::printf("replay keep-alive GET (matched, recorded)  %8.0f requests/s  (%d per round)\n",
              median(rates), REQUESTS);
  std::printf("bare kj-http service, same response        %8.0f requests/s\n", median(baselines));
  std::printf("replay server create+listen+close          %8.1f us\n", median(starts));
  std::printf("loopback netns create (lo up) + release    %8.1f us  (%s)\n", median(namespaces),
              rea::helper::probeLoopbackNetns().detail.c_str());
  std::printf("rea-replay helper spawn+start+finish+reap  %8.2f ms  (added to a capture)\n",
              median(helpers));
  std::printf("  the same with network_access loopback    %8.2f ms\n", median(loopbackHelpers));
  return 0;
}
