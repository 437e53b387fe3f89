#pragma once
// ShimJob: one capture's shim helper job, shared by the RPC server and --standalone. Writes the
// shim executables, then (after the caller's lock-down hook: the filter forbids opening files
// and making sockets) serves the ledger on 127.0.0.1:<ephemeral> and hands each recorded
// invocation to the caller as it is recorded. Owns the ledger and its HTTP server.
//
// Errors: start() throws kj::Exception (FAILED) when the event limit is out of range, a shim file
// cannot be written or the socket cannot be bound. Nothing throws afterwards: every request is
// answered (ShimLedgerServer), a failed accept loop shows in failure().

#include <cstdint>
#include <functional>
#include <string>

#include <kj/async-io.h>
#include <kj/function.h>

#include "evidence/json.h"
#include "evidence/limits.h"
#include "helpers/shim/shim-ledger.h"
#include "helpers/shim/shim-plan.h"

namespace rea::helper {

class ShimLedgerServer;

struct ShimJobConfig {
  ShimPlan plan;               // what the ledger answers from
  std::string shimsDirectory;  // exists; the shim files go here
  std::string clientPath;      // rea-shim-client
  uint32_t protocolEventLimit = uint32_t(evidence::limit::PROTOCOL_EVENTS.defaultValue);
  std::string netnsPath;   // non-empty: listen inside this network namespace (A9 loopback)
  std::string usernsPath;  // entered first when set
};

class ShimJob {
 public:
  static kj::Own<ShimJob> start(kj::AsyncIoContext& io, ShimJobConfig config,
                                std::function<void(const ShimEvent&)> onRecorded,
                                kj::Function<void()> lockDown);
  // Writes one shim file per declared shim, binds 127.0.0.1:0 and listens,
  // then calls `lockDown` (from then on only accept and the connections' reads and writes are
  // needed) and starts serving on the current event loop. `onRecorded` is called from the loop.

  ~ShimJob() noexcept(false);
  KJ_DISALLOW_COPY(ShimJob);

  uint16_t port() const;
  const ShimLedger& ledger() const { return *ledgerPtr; }

  void stop();
  // Stops serving: closes the listening socket and every open connection (their clients exit
  // 127). Idempotent. Recorded events stay.

  kj::Maybe<const kj::Exception&> failure() const;

  ShimJob(kj::Own<ShimLedger> ledger, kj::Own<ShimLedgerServer> server);
  // Use start().

 private:
  kj::Own<ShimLedger> ledgerPtr;
  kj::Maybe<kj::Own<ShimLedgerServer>> server;
  uint16_t boundPort = 0;
};

evidence::Json shimEventToJson(const ShimEvent& event);
// {"event":"invocation","sequence","atNs","command","arguments","workingDirectory",
//  "routeIndex":N|null,"outcome"}: the standalone line for one recorded event.

}  // namespace rea::helper
