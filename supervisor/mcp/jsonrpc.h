#pragma once
// JSON-RPC 2.0 as the Model Context Protocol uses it over stdio (`rea mcp`, mcp-server.h): one
// message per line, no batches (MCP removed them), ids that are strings or integers (never
// null). Turns one received line into a classified message, or into the protocol error to
// answer with, and builds the messages rea sends.
//
// Pure: no I/O.
//
// Errors: none thrown; a line that is not a valid message becomes Message::Kind::INVALID with
// the error response to send (id null when the id could not be read).

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "evidence/json.h"

namespace rea::supervisor::jsonrpc {

// The error codes of JSON-RPC 2.0 §5.1.
constexpr int PARSE_ERROR = -32700;
constexpr int INVALID_REQUEST = -32600;
constexpr int METHOD_NOT_FOUND = -32601;
constexpr int INVALID_PARAMS = -32602;
constexpr int INTERNAL_ERROR = -32603;

constexpr size_t MAX_MESSAGE_BYTES = 160u << 20;
// The longest line read as one message: a comparison may carry two captures of up to 64 MiB
// each (B §10.1's input limit), written as JSON strings with escapes.
constexpr size_t MAX_MESSAGE_DEPTH = 1000;
// Deeper nesting is refused before parsing (the parser recurses).

struct Message {
  enum class Kind { REQUEST, NOTIFICATION, RESPONSE, INVALID };
  Kind kind = Kind::INVALID;
  evidence::Json id;      // REQUEST, RESPONSE: string or integer; INVALID: the id when readable
  std::string method;     // REQUEST, NOTIFICATION
  evidence::Json params;  // REQUEST, NOTIFICATION: an object (absent params become {})
  evidence::Json error;   // INVALID: the complete error response to send
};

Message parseMessage(std::string_view line);
// Classifies one line: a parse error (-32700) for text that is not JSON or nests deeper than
// MAX_MESSAGE_DEPTH; an invalid request (-32600) for JSON that is not a JSON-RPC 2.0 message
// (not an object, an array batch, `jsonrpc` not "2.0", a method that is not a string, an id
// that is null, fractional or of another type, params that are not an object).

evidence::Json result(const evidence::Json& id, evidence::Json value);
// {"jsonrpc":"2.0","id":id,"result":value}.

evidence::Json error(const evidence::Json& id, int code, std::string_view message,
                     std::optional<evidence::Json> data = std::nullopt);
// {"jsonrpc":"2.0","id":id,"error":{"code","message"[,"data"]}}.

evidence::Json notification(std::string_view method, evidence::Json params);
// {"jsonrpc":"2.0","method":method,"params":params}.

std::string serialise(const evidence::Json& message);
// One line (no newline inside: JSON escapes them), ending in "\n". Invalid UTF-8 in a string
// is replaced (U+FFFD) rather than failing: a message must always be sendable.

}  // namespace rea::supervisor::jsonrpc
