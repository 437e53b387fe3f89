#pragma once
// ReplayServer: the loopback HTTP/1.1 + WebSocket replay server of SPEC B §8 on kj-http. It
// listens on 127.0.0.1 (ephemeral port) in the calling process's network namespace (enter the
// capture's namespace first for network_access "loopback", see loopback-netns.h), answers
// requests from the ReplayPlan exactly as B §8.2/§8.3 say, and records them in its
// ProtocolRecorder. It owns the listening socket, every accepted connection and the record.
//
// Hostile clients: the target's bytes are untrusted. Unparseable requests get 400/501, request
// line + headers over `maxHeaderBytes` get 431, a body not complete within `bodyTimeout` gets
// 408, headers not complete within `headerTimeout` end the connection, an invalid WebSocket
// frame gets Close 1002 (1007 for a text frame that is not UTF-8, 1009 for a message over
// protocol_body_bytes); each such connection is then closed and the event noted in
// diagnostics() (not in protocol_events: B §4.3 has no shape for it). More than
// `maxOpenConnections` simultaneous connections are closed at accept. None of this can stall
// another connection: everything runs on the event loop, nothing blocks.
//
// Deviations from REA forced by kj-http, documented for the comparison contract: kj accepts
// only the upper-case methods it knows (a lower-case `get` is answered 501 and noted, where
// Node would also refuse it), and `Expect: 100-continue` is not answered early (clients send
// the body after their own timeout, curl's is 1 s).
//
// Lifetime: construct, listen() once, run the event loop, close() (also done by the
// destructor). Errors: listen() throws (FAILED) when the socket cannot be created or bound;
// nothing else throws — connection failures are diagnostics.

#include <cstdint>
#include <string>

#include <kj/async-io.h>
#include <kj/time.h>

#include "helpers/replay/protocol-recorder.h"
#include "helpers/replay/replay-diagnostics.h"
#include "helpers/replay/replay-plan.h"

namespace rea::helper {

struct ReplayServerOptions {
  // Defences against a hostile or broken target; the defaults suit captures.
  kj::Duration headerTimeout = 10 * kj::SECONDS;  // request line + headers must arrive within
  kj::Duration bodyTimeout = 30 * kj::SECONDS;    // a request body must arrive within
  kj::Duration closeTimeout = 2 * kj::SECONDS;    // wait for a WebSocket client's Close reply
  size_t maxHeaderBytes = 16 * 1024;              // request line + headers (Node's default limit)
  uint32_t maxOpenConnections = 512;  // simultaneous connections, HTTP and WebSocket together
};

class ReplayServer {
 public:
  ReplayServer(kj::AsyncIoContext& io, ReplayPlan plan, ReplayLimits limits,
               const kj::MonotonicClock& clock, ReplayServerOptions options = {});
  // The recorder's clock origin is now. `io` and `clock` must outlive the server.
  ~ReplayServer() noexcept(false);
  KJ_DISALLOW_COPY(ReplayServer);

  uint16_t listen();
  // Binds 127.0.0.1:0 in the current network namespace, starts accepting and returns the port.
  // Call once.

  uint16_t port() const;
  std::string httpUrl() const;       // "http://127.0.0.1:<port>" (REA_REPLAY_HTTP_URL)
  std::string websocketUrl() const;  // "ws://127.0.0.1:<port>/ws" (REA_REPLAY_WEBSOCKET_URL)

  void close();
  // B §8.4 release: stops accepting, terminates open WebSocket clients and closes every
  // connection (requests still waiting on a delay are dropped without an event). Idempotent;
  // the record stays readable.

  ProtocolRecorder& recorder();
  const ReplayDiagnostics& diagnostics() const;
  uint32_t openConnections() const;  // connections accepted and not yet closed

 private:
  class Impl;
  kj::Own<Impl> impl_;
};

}  // namespace rea::helper
