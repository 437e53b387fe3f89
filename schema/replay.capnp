@0xc41f6a2b9d7e3015;
# The replay helper (helpers/replay, binary rea-replay): serves the scenario's replay plan on
# 127.0.0.1:<ephemeral> over HTTP/1.1 and WebSocket (SPEC B §8) and, for network_access
# "loopback", first makes the capture's private network namespace with only `lo` and listens
# inside it (A9). Streams what happened on the wire as protocol events.
#
# Runs in rea-replay; the supervisor's ReplayLink (supervisor/links/replay-link.c++) is the only caller
# and the only reader of these types on the supervisor side. Everything the helper sends is a
# claim: ReplayLink checks it (sequences, timestamps, enums, UTF-8, sizes) and stops a helper
# that breaks a rule. Times are CLOCK_MONOTONIC nanoseconds.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rea::schema");

using Common = import "common.capnp";
using ReplayPlan = import "replay-plan.capnp".ReplayPlan;

interface Replay {
  # Bootstrap capability of rea-replay.

  start @0 (config :ReplayConfig, sink :ReplaySink)
      -> (job :ReplayJob, port :UInt16, originNs :UInt64);
  # With `loopbackNetns`: creates the private network namespace (directly as root, else through
  # a user namespace) and moves the helper into it. Then binds 127.0.0.1:0, installs the seccomp
  # filter and starts serving. `port` is the bound port, `originNs` the recorder's clock origin
  # (B §4.5: protocol at_ms count from it). Throws FAILED on an invalid plan, a failed bind, or
  # when no namespace can be made (the reason says why; the capture must then be refused).
  # Single use.
}

struct ReplayConfig {
  plan @0 :ReplayPlan;
  # The scenario's parsed `replay`, defaults applied (already validated by the supervisor).
  protocolEvents @1 :UInt32;
  protocolBodyBytes @2 :UInt64;
  connections @3 :UInt32;
  # limits.protocol_events, limits.protocol_body_bytes, limits.connections (B §3.6).
  loopbackNetns @4 :Bool;
  # network_access "loopback": listen inside a new namespace with only `lo`.
}

interface ReplaySink {
  # Implemented by the supervisor, called by rea-replay. Events arrive in sequence order.

  push @0 (events :List(ProtocolEvent)) -> stream;
  # One batch (at most 4096 events); the helper awaits each push before the next.

  done @1 (summary :ReplaySummary);
  # Last call: every recorded event has been pushed.
}

struct ProtocolEvent {
  # B §4.3 before assembly: raw time, raw (unnormalised) data.
  sequence @0 :UInt64;
  # 0, 1, 2, ... contiguous along the stream.
  atNs @1 :UInt64;
  # Never decreasing, never before the origin.
  protocol @2 :Protocol;
  direction @3 :Direction;
  method :union {
    none @4 :Void;
    value @5 :Text;
  }
  # HTTP: the request method; WebSocket: none.
  path @6 :Text;
  # HTTP: the URL path without query; WebSocket: "/ws".
  data @7 :Data;
  # UTF-8. Requests carry only "", "<redacted-request-body>" or "<body-over-limit>" (B §4.6.3);
  # responses the body sent; WebSocket events the payload.
  outcome @8 :Outcome;

  enum Protocol { http @0; websocket @1; }
  enum Direction { request @0; response @1; received @2; sent @3; }
  enum Outcome { matched @0; unmatched @1; scriptExhausted @2; disconnected @3; }
}

struct ReplaySummary {
  stream @0 :Common.StreamSummary;
  # truncated/droppedCount: events dropped at limits.protocol_events.
  bodyOverLimit @1 :Bool;
  # A request body exceeded limits.protocol_body_bytes (answered 413).
  connectionCap @2 :Bool;
  # A WebSocket connection beyond limits.connections was terminated.
  diagnostics @3 :List(Diagnostic);
  # What the target did that B §8 has no event for (at most 100 kept), in time order.
  diagnosticCount @4 :UInt64;
  # How many happened in all (>= the list's length).
}

struct Diagnostic {
  atNs @0 :UInt64;
  kind @1 :Text;
  # snake_case kind: "bad_request", "headers_too_large", ... (replay-diagnostics.h).
  detail @2 :Text;
  # A sentence chosen by the server, never client bytes.
}

interface ReplayJob {
  finish @0 ();
  # B §8.4 release: stops accepting, terminates open WebSocket clients, closes every
  # connection, pushes the last batch and calls `sink.done`, then returns. Single use.
}
