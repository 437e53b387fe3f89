#include "supervisor/links/replay-batch.h"

#include <algorithm>

#include "evidence/utf.h"
#include "supervisor/links/helper-message.h"
#include "helpers/common/capnp-bytes.h"

namespace rea::supervisor {

using helper::textOf;

namespace {

const size_t MAX_PATH_BYTES = 16 * 1024;     // the server's request-line limit
const size_t MAX_PLAN_TEXT_BYTES = 4000000;  // a plan body or message: 1,000,000 UTF-16 units
const size_t MAX_DIAGNOSTICS = 100;
const size_t MAX_DETAIL_BYTES = 300;

bool plainSentence(const std::string& text) {
  // Diagnostics are the helper's own words: printable ASCII, bounded.
  if (text.empty() || text.size() > MAX_DETAIL_BYTES) return false;
  for (char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

bool knownDiagnosticKind(const std::string& kind) {
  static const char* const KINDS[] = {"bad_request",
                                      "headers_too_large",
                                      "incomplete_request",
                                      "header_timeout",
                                      "body_timeout",
                                      "bad_websocket_handshake",
                                      "websocket_protocol_error",
                                      "websocket_message_too_large",
                                      "connection_limit",
                                      "connection_error"};
  for (const char* k : KINDS) {
    if (kind == k) return true;
  }
  return false;
}

}  // namespace

kj::Maybe<BrokenRule> ReplayStreamCheck::event(schema::ProtocolEvent::Reader event, uint64_t nowNs,
                                               size_t received, ReplayEvent& e) {
  // Fills `e`, or returns what is wrong with `event`.
  using evidence::ProtocolDirection;
  using evidence::ProtocolKind;
  using evidence::ProtocolOutcome;
  e.sequence = event.getSequence();
  e.atNs = event.getAtNs();
  if (e.sequence != received) return BrokenRule{"sequence not contiguous"};
  if (received >= launch.protocolEvents) {
    return BrokenRule{"more events than limits.protocol_events"};
  }
  if (e.atNs < lastAtNs) return BrokenRule{"timestamps go back in time"};
  if (e.atNs > nowNs) return BrokenRule{"a timestamp in the future"};
  switch (event.getProtocol()) {
    case schema::ProtocolEvent::Protocol::HTTP:
      e.protocol = ProtocolKind::HTTP;
      break;
    case schema::ProtocolEvent::Protocol::WEBSOCKET:
      e.protocol = ProtocolKind::WEBSOCKET;
      break;
    default:
      return BrokenRule{"an unknown protocol"};
  }
  switch (event.getDirection()) {
    case schema::ProtocolEvent::Direction::REQUEST:
      e.direction = ProtocolDirection::REQUEST;
      break;
    case schema::ProtocolEvent::Direction::RESPONSE:
      e.direction = ProtocolDirection::RESPONSE;
      break;
    case schema::ProtocolEvent::Direction::RECEIVED:
      e.direction = ProtocolDirection::RECEIVED;
      break;
    case schema::ProtocolEvent::Direction::SENT:
      e.direction = ProtocolDirection::SENT;
      break;
    default:
      return BrokenRule{"an unknown direction"};
  }
  switch (event.getOutcome()) {
    case schema::ProtocolEvent::Outcome::MATCHED:
      e.outcome = ProtocolOutcome::MATCHED;
      break;
    case schema::ProtocolEvent::Outcome::UNMATCHED:
      e.outcome = ProtocolOutcome::UNMATCHED;
      break;
    case schema::ProtocolEvent::Outcome::SCRIPT_EXHAUSTED:
      e.outcome = ProtocolOutcome::SCRIPT_EXHAUSTED;
      break;
    case schema::ProtocolEvent::Outcome::DISCONNECTED:
      e.outcome = ProtocolOutcome::DISCONNECTED;
      break;
    default:
      return BrokenRule{"an unknown outcome"};
  }
  auto data = event.getData();
  e.data.assign(reinterpret_cast<const char*>(data.begin()), data.size());
  if (!evidence::isValidUtf8(e.data)) return BrokenRule{"data that is not UTF-8"};
  if (e.data.size() > std::max<uint64_t>(launch.protocolBodyBytes, MAX_PLAN_TEXT_BYTES)) {
    return BrokenRule{"data larger than any body or message"};
  }
  std::string path = textOf(event.getPath());
  bool http = e.protocol == ProtocolKind::HTTP;
  if (http) {
    if (!event.getMethod().isValue()) return BrokenRule{"an HTTP event without a method"};
    std::string method = textOf(event.getMethod().getValue());
    if (method.empty() || method.size() > 32 || !evidence::isValidUtf8(method)) {
      return BrokenRule{"an impossible method"};
    }
    if (path.empty() || path.size() > MAX_PATH_BYTES || !evidence::isValidUtf8(path)) {
      return BrokenRule{"an impossible path"};
    }
    if (e.direction != ProtocolDirection::REQUEST && e.direction != ProtocolDirection::RESPONSE) {
      return BrokenRule{"an HTTP event that is neither request nor response"};
    }
    if (e.direction == ProtocolDirection::REQUEST) {
      if (e.outcome == ProtocolOutcome::DISCONNECTED) {
        return BrokenRule{"a disconnected request"};
      }
      // B §4.6.3: a request body never leaves the helper.
      if (!e.data.empty() && e.data != "<redacted-request-body>" && e.data != "<body-over-limit>") {
        return BrokenRule{"request data that is not a placeholder"};
      }
      if (e.outcome == ProtocolOutcome::MATCHED) {
        // B §5.4 rule 12: a matched request names a declared route.
        bool declared = false;
        for (const auto& route : launch.plan.http) {
          declared = declared || (route.method == method && route.path == path);
        }
        if (!declared) return BrokenRule{"a matched request on no declared route"};
      }
    } else if (e.outcome == ProtocolOutcome::UNMATCHED ||
               e.outcome == ProtocolOutcome::SCRIPT_EXHAUSTED) {
      return BrokenRule{"a response with a request's outcome"};
    }
    e.method = kj::mv(method);
  } else {
    if (!event.getMethod().isNone()) return BrokenRule{"a WebSocket event with a method"};
    if (path != "/ws") return BrokenRule{"a WebSocket event not on /ws"};
    if (e.direction != ProtocolDirection::RECEIVED && e.direction != ProtocolDirection::SENT) {
      return BrokenRule{"a WebSocket event that is neither received nor sent"};
    }
    if (e.outcome == ProtocolOutcome::UNMATCHED ||
        (e.direction == ProtocolDirection::RECEIVED && e.outcome != ProtocolOutcome::MATCHED)) {
      return BrokenRule{"a WebSocket outcome B §8.3 does not produce"};
    }
  }
  e.path = kj::mv(path);
  return nullptr;
}

kj::Maybe<BrokenRule> ReplayStreamCheck::push(
    kj::FunctionParam<schema::ReplaySink::PushParams::Reader()> readParams, uint64_t nowNs,
    ReplayRecord& record) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto params = readParams();
    if (record.streamDone) return BrokenRule{"events after done"};
    auto events = params.getEvents();
    if (events.size() > MAX_BATCH_EVENTS) return BrokenRule{"a batch of more than 4096 events"};
    for (auto in : events) {
      ReplayEvent e;
      KJ_IF_MAYBE (broken, event(in, nowNs, record.events.size(), e)) {
        return kj::mv(*broken);
      }
      lastAtNs = e.atNs;
      record.events.push_back(kj::mv(e));
    }
    return nullptr;
  });
}

kj::Maybe<BrokenRule> ReplayStreamCheck::done(
    kj::FunctionParam<schema::ReplaySink::DoneParams::Reader()> readParams, ReplayRecord& record) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto params = readParams();
    if (record.streamDone) return BrokenRule{"done twice"};
    auto summary = params.getSummary();
    auto stream = summary.getStream();
    if (stream.getTruncated() != (stream.getDroppedCount() > 0)) {
      return BrokenRule{"a summary whose truncated flag contradicts its count"};
    }
    if (stream.getTruncated() && record.events.size() != launch.protocolEvents) {
      return BrokenRule{"events dropped before limits.protocol_events was reached"};
    }
    auto diagnostics = summary.getDiagnostics();
    if (diagnostics.size() > MAX_DIAGNOSTICS || summary.getDiagnosticCount() < diagnostics.size()) {
      return BrokenRule{"an impossible diagnostics list"};
    }
    std::vector<ReplayDiagnosticNote> notes;
    for (auto d : diagnostics) {
      ReplayDiagnosticNote note{d.getAtNs(), textOf(d.getKind()), textOf(d.getDetail())};
      if (!knownDiagnosticKind(note.kind) || !plainSentence(note.detail)) {
        return BrokenRule{"a diagnostic that is not one of the helper's own sentences"};
      }
      notes.push_back(kj::mv(note));
    }
    record.streamDone = true;
    record.droppedEvents = stream.getDroppedCount();
    record.bodyOverLimit = summary.getBodyOverLimit();
    record.connectionCap = summary.getConnectionCap();
    record.diagnostics = kj::mv(notes);
    record.diagnosticCount = summary.getDiagnosticCount();
    return nullptr;
  });
}

}  // namespace rea::supervisor
