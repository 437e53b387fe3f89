#pragma once
// WebSocketSession: one accepted WebSocket connection of the replay server (SPEC B §8.3). It
// plays the connection's script (wait delay_ms, stop silently once the socket is no longer
// open, send, record `sent`; after the last message close normally when `disconnect_after` and
// record `sent ""` disconnected), records every text or binary message from the client as
// `received` (payload decoded as UTF-8, ill-formed sequences replaced), answers the client's
// Close, and ends on a protocol error (close 1002), an over-limit message (close 1009) or the
// client vanishing. Sends are serialised through one queue, as kj's WebSocket requires.
//
// Errors: run() never rejects; failures end the session and are noted in ReplayDiagnostics.

#include <kj/async.h>
#include <kj/compat/http.h>
#include <kj/timer.h>

#include <string>

#include "helpers/replay/protocol-recorder.h"
#include "helpers/replay/replay-diagnostics.h"
#include "helpers/replay/replay-plan.h"

namespace rea::helper {

struct WebSocketSessionContext {
  // What every session of one server shares; all of it outlives the sessions.
  kj::Timer& timer;
  const kj::MonotonicClock& clock;
  ProtocolRecorder& recorder;
  ReplayDiagnostics& diagnostics;
  uint64_t maxMessageBytes;   // limits.protocol_body_bytes
  kj::Duration closeTimeout;  // how long to wait for the client's Close reply
};

class WebSocketSession {
 public:
  WebSocketSession(WebSocketSessionContext& context, kj::Own<kj::WebSocket> socket,
                   kj::Maybe<const WebSocketScript&> script);
  // `script` null means the plan has no script for this connection: run() records
  // `sent ""` script_exhausted and terminates the connection. The script outlives the session.
  ~WebSocketSession() noexcept(false);

  kj::Promise<void> run();
  // Resolves once the connection is over; by then the WebSocket has been destroyed (kj-http
  // requires that before the request handler completes). Call once.

  static kj::Promise<void> terminate(kj::Timer& timer, kj::Own<kj::WebSocket> socket);
  // Ends an accepted connection without a Close frame (the `ws` library's terminate()): the
  // 101 response already queued is flushed, then the socket is shut down and dropped.

 private:
  // Declared first so it is destroyed last: the promises below may refer to it.
  kj::Maybe<kj::Own<kj::WebSocket>> socket_;
  WebSocketSessionContext& context_;
  kj::Maybe<const WebSocketScript&> script_;
  bool open_ = true;        // no Close sent or received, no error: scripted sends may go out
  bool closeSent_ = false;  // our Close went out (reply, error or disconnect_after)
  kj::Promise<void> sendTail_ = kj::READY_NOW;  // serialises send() and close()
  kj::Promise<void> scriptTask_ = nullptr;
  kj::Own<kj::PromiseFulfiller<void>> ended_;  // fulfilled to end the session early

  kj::WebSocket& socket();
  kj::Promise<void> enqueue(kj::Function<kj::Promise<void>()> operation);
  kj::Promise<void> receiveLoop();
  kj::Promise<void> onReceiveError(kj::Exception&& exception);
  kj::Promise<void> playScript(size_t index);
  kj::Promise<void> failConnection(ReplayDiagnostic::Kind kind, std::string detail, uint16_t code);
  void recordEvent(ProtocolEvent::Direction direction, std::string data,
                   ProtocolEvent::Outcome outcome);
};

}  // namespace rea::helper
