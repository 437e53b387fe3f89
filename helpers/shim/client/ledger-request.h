#pragma once
// The shim client's half of the ledger protocol (SPEC B §7.2 step 1-2): where the ledger is
// (REA_SHIM_LEDGER_URL), the JSON body one invocation sends, and one blocking HTTP/1.1 POST
// over loopback TCP. Plain C++ and sockets, no kj: the client must start fast inside the target.
//
// Errors: none thrown (the client is built without exceptions); functions return false and set
// a one-line English `error`.

#include <cstdint>
#include <string>
#include <vector>

namespace rea::helper {

struct LedgerAddress {
  uint32_t ipv4 = 0;  // network byte order
  uint16_t port = 0;
  std::string hostPort;  // "127.0.0.1:<port>", the Host header
  std::string path;      // "/invoke"
};

bool parseLedgerUrl(const char* url, LedgerAddress& address, std::string& error);
// Accepts `http://<IPv4 literal or localhost>:<port><path>` (port 1-65535, path starting
// with '/'), which is what the harness sets: `http://127.0.0.1:<port>/invoke`.

std::string invocationJson(const std::string& command, const std::vector<std::string>& arguments,
                           const std::string& workingDirectory);
// `{"command":…,"arguments":[…],"working_directory":…}` with every string escaped for JSON
// (quotes, backslashes, control characters as \n or \u00XX) and ill-formed UTF-8 replaced by
// U+FFFD, so any argv byte string becomes valid JSON. Other bytes pass through as UTF-8.

struct HttpReply {
  int status = 0;
  std::string body;
};

bool parseHttpReply(const std::string& raw, bool complete, HttpReply& reply, bool& done,
                    std::string& error);
// Parses a response read so far. `done` becomes true once the status line, headers and the
// whole body (Content-Length, or everything up to EOF when `complete` and no length) are in.
// Returns false for a response that can never be valid.

bool postInvocation(const LedgerAddress& address, const std::string& body, HttpReply& reply,
                    std::string& error);
// Connects, sends `POST <path>` with the JSON body and `Connection: close`, reads the reply.

}  // namespace rea::helper
