#pragma once
// ReplayLink: the supervisor's one connection to the replay helper (rea-replay). Owns the helper
// process, its Cap'n Proto connection, the stream of protocol events it pushes and, for
// network_access "loopback", the supervisor's handles on the private network namespace the
// helper made (so the pty helper's target can join it through /proc/<our pid>/fd/<n> and no pid
// can be recycled under it). It is the only supervisor code that reads schema/replay.capnp
// types: every event is converted to a plain struct and checked on the way in (contiguous
// sequences from 0 up to limits.protocol_events, times never decreasing, never before the
// recorder's origin nor in the future, enum combinations B §8 allows, method only on HTTP,
// "/ws" on WebSocket, UTF-8 data, request data only the B §4.6.3 placeholders, a matched HTTP
// request only on a declared (method, path): B §5.4 rule 12). A helper that breaks a rule is
// killed and reported as a fault, exactly like a helper that dies (A13).
//
// Typical use (one link per capture, before T0):
//   ReplayLink link(io);
//   ReplayStart s = link.start(launch).wait(ws);   // listening; URLs for the target
//   ... the capture runs; the target talks to s.httpUrl ...
//   link.finish().wait(ws);                         // server closed, stream complete
//   const ReplayRecord& r = link.record();
//
// Errors: start() rejects (FAILED, with the helper's reason) when the helper cannot be spawned
// or refuses the launch (invalid plan, no namespace can be made, bind failed), or (DISCONNECTED)
// when it died before answering. After a successful start nothing throws: losing the helper is
// data (record().fault) and finish() always resolves.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <kj/async-io.h>
#include <kj/time.h>

#include "evidence/capture.h"
#include "evidence/limits.h"
#include "evidence/scenario.h"
#include "supervisor/links/helper-process.h"

namespace rea::supervisor {

struct ReplayLaunch {
  evidence::Replay plan;  // the scenario's `replay` (validated): what the helper serves
  uint32_t protocolEvents = uint32_t(evidence::limit::PROTOCOL_EVENTS.defaultValue);
  uint64_t protocolBodyBytes = uint64_t(evidence::limit::PROTOCOL_BODY_BYTES.defaultValue);
  uint32_t connections = uint32_t(evidence::limit::CONNECTIONS.defaultValue);
  // limits.protocol_events, limits.protocol_body_bytes, limits.connections
  bool loopbackNetns = false;  // network_access "loopback" (A9)
};
// Its field types, as replay.capnp's, hold every value evidence/limits.h allows.
static_assert(evidence::limit::PROTOCOL_EVENTS.max <= UINT32_MAX &&
              evidence::limit::CONNECTIONS.max <= UINT32_MAX);

struct ReplayStart {
  uint16_t port = 0;
  uint64_t originNs = 0;                  // the recorder's clock origin (B §4.5), CLOCK_MONOTONIC
  std::string httpUrl;                    // REA_REPLAY_HTTP_URL
  std::string websocketUrl;               // REA_REPLAY_WEBSOCKET_URL
  std::optional<std::string> netnsPath;   // loopback: the namespace, for the target to join
  std::optional<std::string> usernsPath;  // loopback through a user namespace: join it first
};

struct ReplayEvent {
  // One protocol event as the helper recorded it: raw time, raw data (B §4.3 before assembly).
  uint64_t sequence = 0;
  uint64_t atNs = 0;
  evidence::ProtocolKind protocol = evidence::ProtocolKind::HTTP;
  evidence::ProtocolDirection direction = evidence::ProtocolDirection::REQUEST;
  std::optional<std::string> method;
  std::optional<std::string> path;
  std::string data;
  evidence::ProtocolOutcome outcome = evidence::ProtocolOutcome::MATCHED;
};

struct ReplayDiagnosticNote {
  // Something the target did that B §8 has no event for (a malformed request, a bad frame...).
  uint64_t atNs = 0;
  std::string kind;    // "bad_request", ...
  std::string detail;  // the helper's fixed sentence
};

struct ReplayRecord {
  std::optional<uint64_t> originNs;  // set once the helper listens
  std::optional<uint16_t> port;      // the port it listens on (A5: normalised everywhere)
  std::vector<ReplayEvent> events;
  bool streamDone = false;
  uint64_t droppedEvents = 0;  // dropped at limits.protocol_events
  bool bodyOverLimit = false;  // a request body over limits.protocol_body_bytes
  bool connectionCap = false;  // a WebSocket connection over limits.connections
  std::vector<ReplayDiagnosticNote> diagnostics;
  uint64_t diagnosticCount = 0;
  std::optional<HelperFault> fault;    // the helper was lost before its job was done
  std::optional<HelperEnd> helperEnd;  // how the process ended (after finish())

  bool truncated() const { return droppedEvents > 0 || bodyOverLimit || connectionCap; }
};

class ReplayLink {
 public:
  explicit ReplayLink(kj::AsyncIoContext& io,
                      std::string helperDirectory = defaultHelperDirectory());
  // `helperDirectory` holds rea-replay.
  KJ_DISALLOW_COPY(ReplayLink);

  ~ReplayLink() noexcept(false);
  // Kills the helper if it still runs; the namespace handles close with the link.

  kj::Promise<ReplayStart> start(ReplayLaunch launch);
  // Spawns rea-replay and resolves once it listens. Call once. With loopbackNetns, also checks
  // that the helper really is in a namespace other than ours before resolving (never silent
  // host networking) and keeps it open until the link dies.

  kj::Promise<void> finish(kj::Duration deadline = 5 * kj::SECONDS);
  // B §8.4 release: the helper closes its server and ends its stream; the link reaps it. A
  // helper that does not complete within `deadline` is killed and recorded as a fault. Resolves
  // (never rejects); afterwards record() is complete. Call once, after start() settled.

  const ReplayRecord& record() const;

  pid_t helperPid() const;
  // The helper's pid while it runs (0 before start): for tests that kill it.

  class Impl;

 private:
  kj::Own<Impl> impl;
};

std::optional<std::string> loopbackNetnsUnavailable();
// Before launch: nullopt when this process can make a network namespace (directly, or through a
// user namespace), else a sentence saying why not. Tries both in a throw-away child.

}  // namespace rea::supervisor
