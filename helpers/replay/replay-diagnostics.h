#pragma once
// ReplayDiagnostics: what the target did to the replay server that SPEC B §8 has no event for —
// a request kj-http could not parse, headers too large, a client too slow to send its headers
// or body, a broken WebSocket handshake or frame, a connection refused because too many were
// open. B §4.3's ProtocolEvent cannot express these (no method/path to name, no fitting
// outcome), and inventing events would break comparison with REA's captures, so they are kept
// here, apart from protocol_events, for the supervisor to report as a `protocol` residual
// unknown or limitation. Details are fixed sentences and numbers chosen by the server: never a
// byte of what the client sent (headers and bodies may hold secrets, B §4.6.3).
//
// Errors: none; the list is capped (MAX_KEPT entries) and the counters keep counting.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace rea::helper {

struct ReplayDiagnostic {
  enum class Kind {
    BAD_REQUEST,                  // unparseable request line or headers (answered 400/501)
    HEADERS_TOO_LARGE,            // request line + headers over the limit (answered 431)
    INCOMPLETE_REQUEST,           // connection closed in the middle of a request's headers
    HEADER_TIMEOUT,               // headers not complete within the header timeout (closed)
    BODY_TIMEOUT,                 // body not complete within the body timeout (answered 408)
    BAD_WEBSOCKET_HANDSHAKE,      // upgrade request kj-http refused (answered 400)
    WEBSOCKET_PROTOCOL_ERROR,     // invalid frame from the client (closed with 1002)
    WEBSOCKET_MESSAGE_TOO_LARGE,  // frame payload over protocol_body_bytes (closed with 1009)
    CONNECTION_LIMIT,             // too many connections open at once (closed at accept)
    CONNECTION_ERROR,             // any other failure of one connection (closed)
  };
  static constexpr size_t KIND_COUNT = 10;

  uint64_t atNs = 0;  // CLOCK_MONOTONIC
  Kind kind = Kind::CONNECTION_ERROR;
  std::string detail;  // server-chosen words; never client bytes
};

const char* diagnosticKindName(ReplayDiagnostic::Kind kind);
// "bad_request", "headers_too_large", ... (snake_case of the enumerant).

class ReplayDiagnostics {
 public:
  static constexpr size_t MAX_KEPT = 100;

  void add(uint64_t atNs, ReplayDiagnostic::Kind kind, std::string detail);

  const std::vector<ReplayDiagnostic>& kept() const { return kept_; }
  uint64_t count(ReplayDiagnostic::Kind kind) const { return counts_[static_cast<size_t>(kind)]; }
  uint64_t total() const { return total_; }

 private:
  std::vector<ReplayDiagnostic> kept_;
  std::array<uint64_t, ReplayDiagnostic::KIND_COUNT> counts_{};
  uint64_t total_ = 0;
};

}  // namespace rea::helper
