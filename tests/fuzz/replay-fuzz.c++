// Fuzz target: the loopback replay server's front end (helpers/replay, SPEC B §8) as one hostile
// client connection. The bytes go, as the client's side of an in-memory kj two-way pipe, into a
// real ReplayConnection (what ReplayServer runs for every accepted socket) sharing a
// ReplayState with a fixed plan: HTTP routes (delay, disconnect, max_calls, request headers and
// body) and WebSocket scripts on /ws. The client then half-closes and reads everything the
// server sends.
//
// Time is simulated: a manual kj::TimerImpl and a clock that reads it, advanced to each next
// timer event, so header/body timeouts, route delays and close timeouts all fire instantly and
// the work per input is bounded. Property: after the client's EOF the connection ends once the
// pending timers have fired (a connection that never ends would hold one of the server's
// connection slots forever).
//
// Input: byte 0 picks how the client writes (0x00-0x7f: chunks of 1 + byte % 64 bytes, else one
// write); the rest is the client's byte stream.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <kj/async-io.h>
#include <kj/async.h>
#include <kj/debug.h>
#include <kj/timer.h>
#include <nlohmann/json.hpp>

#include "helpers/replay/replay-connection.h"
#include "helpers/replay/replay-plan.h"
#include "helpers/replay/replay-state.h"
#include "helpers/replay/standalone.h"

namespace {

using rea::helper::ReplayConnection;
using rea::helper::ReplayState;

const char PLAN[] = R"({
  "http": [
    {"method": "GET", "path": "/", "status": 200, "body": "hello",
     "response_headers": {"x-served-by": "rea"}, "max_calls": 3},
    {"method": "POST", "path": "/api/login", "status": 201, "body": "{\"ok\":true}",
     "request_headers": {"content-type": "application/json"}, "request_body": "{\"u\":1}"},
    {"method": "GET", "path": "/slow", "status": 200, "body": "late", "delay_ms": 1500},
    {"method": "GET", "path": "/drop", "status": 200, "body": "", "disconnect": true},
    {"method": "HEAD", "path": "/", "status": 204, "body": ""}
  ],
  "websocket_connections": [
    {"messages": [{"data": "first"}, {"data": "second", "delay_ms": 20}],
     "disconnect_after": true},
    {"messages": [{"data": "only"}]}
  ]
})";

void check(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "property failed: %s\n", what);
    abort();
  }
}

class TimerClock final : public kj::MonotonicClock {
 public:
  explicit TimerClock(kj::TimerImpl& timer) : timer(timer) {}
  kj::TimePoint now() const override { return timer.now(); }

 private:
  kj::TimerImpl& timer;
};

kj::Promise<void> writeAll(kj::AsyncIoStream& client, kj::ArrayPtr<const kj::byte> bytes,
                           size_t chunk) {
  if (bytes.size() == 0) {
    client.shutdownWrite();
    return kj::READY_NOW;
  }
  size_t n = kj::min(chunk, bytes.size());
  return client.write(bytes.begin(), n).then([&client, bytes, n, chunk]() {
    return writeAll(client, bytes.slice(n, bytes.size()), chunk);
  });
}

kj::Promise<void> readAll(kj::AsyncIoStream& client, kj::byte* buffer, size_t size) {
  return client.tryRead(buffer, 1, size)
      .then([&client, buffer, size](size_t n) -> kj::Promise<void> {
        if (n == 0) return kj::READY_NOW;
        return readAll(client, buffer, size);
      });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t chunk = data[0] < 0x80 ? 1 + data[0] % 64 : size;
  kj::ArrayPtr<const kj::byte> bytes(data + 1, size - 1);

  // The server notes every hostile request as a warning; only errors (bugs) are worth printing.
  kj::_::Debug::setLogLevel(kj::LogSeverity::ERROR);
  static const rea::helper::ReplayPlan plan =
      rea::helper::replayPlanFromJson(rea::evidence::Json::parse(PLAN));
  rea::helper::ReplayLimits limits;
  limits.protocolEvents = 20;
  limits.protocolBodyBytes = 4096;
  limits.connections = 2;

  kj::EventLoop loop;
  kj::WaitScope waitScope(loop);
  kj::TimerImpl timer(kj::origin<kj::TimePoint>() + 1000 * kj::SECONDS);
  TimerClock clock(timer);
  rea::helper::ReplayServerOptions options;
  options.maxHeaderBytes = 2048;
  ReplayState state(timer, clock, plan, limits, options);

  auto pipe = kj::newTwoWayPipe();
  kj::Own<kj::AsyncIoStream> client = kj::mv(pipe.ends[0]);
  auto connection = kj::heap<ReplayConnection>(state, kj::mv(pipe.ends[1]));
  kj::Promise<void> served = connection->run().eagerlyEvaluate(nullptr);
  kj::Promise<void> written =
      writeAll(*client, bytes, chunk).eagerlyEvaluate([](kj::Exception&&) {});
  kj::byte buffer[4096];
  kj::Promise<void> read =
      readAll(*client, buffer, sizeof(buffer)).eagerlyEvaluate([](kj::Exception&&) {});

  // Each step runs everything runnable, then jumps to the next timer event. The step bound only
  // guards the fuzzer itself; the property is that the timers run out before it.
  bool ended = false;
  for (int step = 0; step < 10000; ++step) {
    if (served.poll(waitScope)) {
      served.wait(waitScope);
      ended = true;
      break;
    }
    KJ_IF_MAYBE (next, timer.nextEvent()) {
      timer.advanceTo(*next);
    } else {
      break;
    }
  }
  check(ended, "the connection ends after the client's EOF and every timer");
  (void)state.recorder.takeEvents();
  return 0;
}
