#include "helpers/replay/replay-diagnostics.h"

#include <utility>

namespace rea::helper {

const char* diagnosticKindName(ReplayDiagnostic::Kind kind) {
  using Kind = ReplayDiagnostic::Kind;
  switch (kind) {
    case Kind::BAD_REQUEST:
      return "bad_request";
    case Kind::HEADERS_TOO_LARGE:
      return "headers_too_large";
    case Kind::INCOMPLETE_REQUEST:
      return "incomplete_request";
    case Kind::HEADER_TIMEOUT:
      return "header_timeout";
    case Kind::BODY_TIMEOUT:
      return "body_timeout";
    case Kind::BAD_WEBSOCKET_HANDSHAKE:
      return "bad_websocket_handshake";
    case Kind::WEBSOCKET_PROTOCOL_ERROR:
      return "websocket_protocol_error";
    case Kind::WEBSOCKET_MESSAGE_TOO_LARGE:
      return "websocket_message_too_large";
    case Kind::CONNECTION_LIMIT:
      return "connection_limit";
    case Kind::CONNECTION_ERROR:
      return "connection_error";
  }
  return "?";
}

void ReplayDiagnostics::add(uint64_t atNs, ReplayDiagnostic::Kind kind, std::string detail) {
  ++total_;
  ++counts_[static_cast<size_t>(kind)];
  if (kept_.size() < MAX_KEPT) kept_.push_back({atNs, kind, std::move(detail)});
}

}  // namespace rea::helper
