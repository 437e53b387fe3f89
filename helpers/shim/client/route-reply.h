#pragma once
// What a matched shim call must do (SPEC B §7.2 steps 3-4), read from the ledger's 200 body:
// the route JSON `{"outputs":[{"at_ms","stream","data"}…],"termination":{"type","code"|
// "signal"},…}`. Includes the small JSON reader it needs (objects, arrays, strings with every
// escape, numbers, literals; depth-limited), so the client needs no JSON library.
//
// Errors: none thrown; parseRouteReply() returns false with a one-line English `error`.

#include <cstdint>
#include <string>
#include <vector>

namespace rea::helper {

struct ReplyOutput {
  uint32_t atMs = 0;
  int fd = 1;  // 1 = stdout, 2 = stderr
  std::string data;
};

struct RouteReply {
  std::vector<ReplyOutput> outputs;
  bool bySignal = false;
  int exitCode = 0;  // when !bySignal
  int signal = 0;    // when bySignal: SIGINT, SIGTERM or SIGKILL
};

bool parseRouteReply(const std::string& body, RouteReply& reply, std::string& error);
// Members other than `outputs` and `termination` are ignored. A missing `outputs` means none.

uint64_t waitBeforeOutputMs(const std::vector<ReplyOutput>& outputs, size_t k);
// max(0, at_ms_k − at_ms_{k−1}), and at_ms_0 for the first: offsets are relative to the
// previous *declared* offset; an out-of-order offset waits 0.

}  // namespace rea::helper
