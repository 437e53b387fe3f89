#pragma once
// The shim ledger's HTTP front (SPEC B §7.3): an HTTP/1.1 server on 127.0.0.1:<ephemeral>
// (kj-http) that accepts only `POST /invoke`, hands each well-formed invocation to a ShimLedger
// and answers 200 with the route JSON (matched) or 409 (unmatched, exhausted). Anything else
// is 404, a body over 64 KiB or not a valid invocation is 400; none of those is recorded. It
// runs on the caller's kj event loop, so the shim helper can serve it beside its RPC server.
// It owns the listening socket; the ledger is borrowed.
//
// Errors: start() throws kj::Exception (FAILED) when the socket cannot be bound. A failure
// inside one connection (unparseable HTTP, broken body framing, a client hanging up) is
// answered 400 where possible and ends that connection only, silently; a failure of the accept
// loop itself is kept and reported by failure().

#include <cstdint>
#include <string>

#include <kj/common.h>
#include <kj/function.h>
#include <kj/memory.h>

namespace kj {
class LowLevelAsyncIoProvider;
class Timer;
class Exception;
}  // namespace kj

namespace rea::helper {

class ShimLedger;

class ShimLedgerServer {
 public:
  ShimLedgerServer(kj::LowLevelAsyncIoProvider& lowLevel, kj::Timer& timer, ShimLedger& ledger);
  ShimLedgerServer(kj::LowLevelAsyncIoProvider& lowLevel, kj::Timer& timer, ShimLedger& ledger,
                   kj::Function<uint64_t()> nowNs);
  // Arguments outlive the server. `nowNs` stamps each invocation (default: CLOCK_MONOTONIC in
  // nanoseconds, the clock every helper shares).
  ~ShimLedgerServer() noexcept(false);
  ShimLedgerServer(const ShimLedgerServer&) = delete;
  ShimLedgerServer& operator=(const ShimLedgerServer&) = delete;

  uint16_t start();
  // Binds 127.0.0.1:0, listens (close-on-exec, so neither the target nor a shim client inherits
  // it) and starts serving on the current event loop. Returns the port. A second call throws.
  // Requests are served only while the loop runs (some promise is being waited on).

  uint16_t port() const;
  // The bound port (harness-allocated: normalised wherever it appears, SPEC A5). Throws before
  // start().
  std::string url() const;
  // `http://127.0.0.1:<port>/invoke`, the value of REA_SHIM_LEDGER_URL (B §6.3).

  kj::Maybe<const kj::Exception&> failure() const;
  // The exception that ended the accept loop, or nullptr while it is serving.

 private:
  struct Impl;
  kj::Own<Impl> impl;
};

}  // namespace rea::helper
