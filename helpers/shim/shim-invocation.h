#pragma once
// One shim client's request to the ledger (SPEC B §7.2 step 1, §7.3): the body of
// `POST /invoke`, `{"command": string, "arguments": string[], "working_directory": string}`.
// The bytes come from whatever runs inside the target, so they are untrusted: this is the one
// parser of them, and it answers "malformed" rather than throwing.
//
// Errors: none thrown; a body that is not such an object yields std::nullopt.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rea::helper {

constexpr size_t SHIM_REQUEST_BODY_LIMIT = 64 * 1024;
// A request body longer than this many bytes is answered 400 and not recorded (B §7.3).

struct ShimInvocation {
  std::string command;
  std::vector<std::string> arguments;
  std::string workingDirectory;
};

std::optional<ShimInvocation> parseShimInvocation(std::string_view body);
// The invocation, or nullopt when the body is not JSON or not an object with a string
// `command`, a string-array `arguments` and a string `working_directory` (other members are
// ignored). The body is decoded as UTF-8 with ill-formed sequences replaced by U+FFFD first, as
// the baseline's text decoding of the request did. A `\uD800`-style lone surrogate escape, which
// JavaScript would keep, is rejected (our strings are UTF-8 and cannot hold it).

}  // namespace rea::helper
