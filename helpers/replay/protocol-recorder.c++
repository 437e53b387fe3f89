#include "helpers/replay/protocol-recorder.h"

#include <utility>

namespace rea::helper {

const char* protocolName(ProtocolEvent::Protocol protocol) {
  switch (protocol) {
    case ProtocolEvent::Protocol::HTTP:
      return "http";
    case ProtocolEvent::Protocol::WEBSOCKET:
      return "websocket";
  }
  return "?";
}

const char* directionName(ProtocolEvent::Direction direction) {
  switch (direction) {
    case ProtocolEvent::Direction::REQUEST:
      return "request";
    case ProtocolEvent::Direction::RESPONSE:
      return "response";
    case ProtocolEvent::Direction::RECEIVED:
      return "received";
    case ProtocolEvent::Direction::SENT:
      return "sent";
  }
  return "?";
}

const char* outcomeName(ProtocolEvent::Outcome outcome) {
  switch (outcome) {
    case ProtocolEvent::Outcome::MATCHED:
      return "matched";
    case ProtocolEvent::Outcome::UNMATCHED:
      return "unmatched";
    case ProtocolEvent::Outcome::SCRIPT_EXHAUSTED:
      return "script_exhausted";
    case ProtocolEvent::Outcome::DISCONNECTED:
      return "disconnected";
  }
  return "?";
}

uint64_t monotonicNs(const kj::MonotonicClock& clock) {
  return static_cast<uint64_t>((clock.now() - kj::origin<kj::TimePoint>()) / kj::NANOSECONDS);
}

ProtocolRecorder::ProtocolRecorder(uint32_t maxEvents, const kj::MonotonicClock& clock)
    : maxEvents_(maxEvents), clock_(clock), originNs_(monotonicNs(clock)) {}

void ProtocolRecorder::record(ProtocolEvent::Protocol protocol, ProtocolEvent::Direction direction,
                              std::optional<std::string> method, std::optional<std::string> path,
                              std::string data, ProtocolEvent::Outcome outcome) {
  if (recorded_ >= maxEvents_) {
    truncation_.eventCap = true;
    ++dropped_;
    return;
  }
  ProtocolEvent event;
  event.sequence = recorded_++;
  event.atNs = monotonicNs(clock_);
  event.protocol = protocol;
  event.direction = direction;
  event.method = std::move(method);
  event.path = std::move(path);
  event.data = std::move(data);
  event.outcome = outcome;
  pending_.push_back(std::move(event));
  KJ_IF_MAYBE (listener, listener_) {
    (*listener)();
  }
}

std::vector<ProtocolEvent> ProtocolRecorder::takeEvents() {
  std::vector<ProtocolEvent> result;
  result.swap(pending_);
  return result;
}

}  // namespace rea::helper
