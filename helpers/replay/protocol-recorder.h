#pragma once
// ProtocolRecorder: the replay helper's record of what happened on the wire (SPEC B §8.1,
// §4.3 ProtocolEvent). It owns the event list and the truncation verdict: events are appended
// with `sequence` = their index while fewer than `limits.protocol_events` have been recorded;
// later ones are dropped and the recorder says it truncated (B §4.8). Times are raw
// CLOCK_MONOTONIC nanoseconds; the supervisor turns them into bucketed milliseconds relative to
// the recorder's origin and normalises/redacts `data` at assembly (B §8.4) — this module
// never sees a request body or a header (B §4.6.3: callers pass the placeholders).
//
// Errors: none; recording never fails (a full recorder drops and marks truncation).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kj/common.h>
#include <kj/function.h>
#include <kj/time.h>

namespace rea::helper {

struct ProtocolEvent {
  enum class Protocol { HTTP, WEBSOCKET };
  enum class Direction { REQUEST, RESPONSE, RECEIVED, SENT };
  enum class Outcome { MATCHED, UNMATCHED, SCRIPT_EXHAUSTED, DISCONNECTED };

  uint64_t sequence = 0;
  uint64_t atNs = 0;  // CLOCK_MONOTONIC
  Protocol protocol = Protocol::HTTP;
  Direction direction = Direction::REQUEST;
  std::optional<std::string> method;  // HTTP only; null for WebSocket events
  std::optional<std::string> path;    // "/ws" for WebSocket events
  std::string data;
  Outcome outcome = Outcome::MATCHED;
};

const char* protocolName(ProtocolEvent::Protocol protocol);     // "http", "websocket"
const char* directionName(ProtocolEvent::Direction direction);  // "request", "response", ...
const char* outcomeName(ProtocolEvent::Outcome outcome);        // "matched", "script_exhausted"...

// The request-event `data` placeholders of B §4.6.3.
constexpr const char REDACTED_REQUEST_BODY[] = "<redacted-request-body>";
constexpr const char BODY_OVER_LIMIT[] = "<body-over-limit>";

struct ReplayTruncation {
  // Why the replay record is incomplete (B §4.8 "loopback replay truncated"); any of them makes
  // the capture truncated.
  bool eventCap = false;       // limits.protocol_events reached, later events dropped
  bool bodyOverLimit = false;  // a request body exceeded limits.protocol_body_bytes
  bool connectionCap = false;  // a WebSocket connection beyond limits.connections
  bool any() const { return eventCap || bodyOverLimit || connectionCap; }
};

class ProtocolRecorder {
 public:
  ProtocolRecorder(uint32_t maxEvents, const kj::MonotonicClock& clock);
  // Starts the clock origin (B §8.1: "its creation time"). `clock` must outlive the recorder.

  void record(ProtocolEvent::Protocol protocol, ProtocolEvent::Direction direction,
              std::optional<std::string> method, std::optional<std::string> path, std::string data,
              ProtocolEvent::Outcome outcome);
  // Stamps the event now and appends it, or drops it and marks `eventCap` when full.

  void markBodyOverLimit() { truncation_.bodyOverLimit = true; }
  void markConnectionCap() { truncation_.connectionCap = true; }

  std::vector<ProtocolEvent> takeEvents();
  // The events recorded since the previous call, in sequence order (for streaming batches to
  // the supervisor; `sequence` keeps counting across calls).

  void setListener(kj::Function<void()> listener) { listener_ = kj::mv(listener); }
  // Called after each appended event (not for dropped ones), e.g. to schedule a batch flush.

  uint64_t originNs() const { return originNs_; }
  uint64_t recordedCount() const { return recorded_; }
  uint64_t droppedCount() const { return dropped_; }
  const ReplayTruncation& truncation() const { return truncation_; }

 private:
  uint32_t maxEvents_;
  const kj::MonotonicClock& clock_;
  uint64_t originNs_;
  uint64_t recorded_ = 0;
  uint64_t dropped_ = 0;
  ReplayTruncation truncation_;
  std::vector<ProtocolEvent> pending_;
  kj::Maybe<kj::Function<void()>> listener_;
};

uint64_t monotonicNs(const kj::MonotonicClock& clock);
// The clock's reading in nanoseconds since its origin (CLOCK_MONOTONIC for
// kj::systemPreciseMonotonicClock()).

}  // namespace rea::helper
