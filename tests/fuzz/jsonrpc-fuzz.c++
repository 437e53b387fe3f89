// Fuzz target: one line a client sends to `rea mcp` (supervisor/mcp/jsonrpc.h parseMessage()).
//
// Properties: a line is always classified, never thrown on; an invalid one carries a complete
// JSON-RPC error response (code in the range of JSON-RPC 2.0 §5.1); what rea would answer to any
// of them serialises to one line that parses back.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "supervisor/mcp/jsonrpc.h"

namespace {

using rea::evidence::Json;
namespace jsonrpc = rea::supervisor::jsonrpc;

void check(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "property failed: %s\n", what);
    abort();
  }
}

void checkOneLine(const Json& message) {
  std::string line = jsonrpc::serialise(message);
  check(!line.empty() && line.back() == '\n', "a serialised message ends in a newline");
  check(line.find('\n') == line.size() - 1, "a serialised message is one line");
  check(!Json::parse(line, nullptr, false).is_discarded(), "a serialised message parses");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string line(reinterpret_cast<const char*>(data), size);
  auto message = jsonrpc::parseMessage(line);
  using Kind = jsonrpc::Message::Kind;
  switch (message.kind) {
    case Kind::INVALID: {
      int code = message.error["error"]["code"].get<int>();
      check(code <= -32600 && code >= -32700, "an invalid message gets a JSON-RPC error");
      check(message.error["id"] == message.id, "the error answers the id it could read");
      checkOneLine(message.error);
      break;
    }
    case Kind::REQUEST:
      check(message.id.is_string() || message.id.is_number_integer(), "a request id is valid");
      check(message.params.is_object(), "params are an object");
      checkOneLine(jsonrpc::result(message.id, message.params));
      checkOneLine(jsonrpc::error(message.id, jsonrpc::METHOD_NOT_FOUND, message.method));
      break;
    case Kind::NOTIFICATION:
      check(message.params.is_object(), "params are an object");
      checkOneLine(jsonrpc::notification(message.method, message.params));
      break;
    case Kind::RESPONSE:
      break;
  }
  return 0;
}
