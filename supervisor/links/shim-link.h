#pragma once
// ShimLink: the supervisor's one connection to the shim helper (rea-shim). Owns the helper
// process, its Cap'n Proto connection and the background tasks receiving its stream of shim
// invocations, and is the only supervisor code that reads schema/shim.capnp types. Every event
// is converted to a plain ShimCall and checked against the plan it was sent (SPEC B §7.3): the
// sequence is contiguous, times never decrease nor lie in the future, text is UTF-8, an
// unmatched call names no route and no route of its shim has its arguments, a matched or
// exhausted call names the first route whose arguments equal its own, a route is matched at
// most `max_calls` times and exhausted only once it was, and no more than the protocol-event
// limit is recorded. So B §5.4 rules 10 and 11 hold for whatever a helper sends. A helper that
// breaks a rule is killed and reported as a fault, exactly like a helper that dies (A13).
//
// Typical use (one link per capture, one event loop):
//   ShimLink link(io);
//   std::string url = link.start(launch).wait(ws);   // shim files written, ledger serving
//   ... the target runs with REA_SHIM_LEDGER_URL = url ...
//   link.finish().wait(ws);                          // stream complete, helper gone
//   const ShimRecord& r = link.record();             // calls, truncation, fault
//
// Errors: start() rejects (FAILED, with the helper's reason) when the helper cannot be spawned
// or refuses the launch (a shim file that cannot be written, no socket), or (DISCONNECTED) when
// it died before answering. After a successful start nothing throws: losing the helper is data
// (record().fault) and finish() always resolves.

#include <cstdint>
#include <kj/async-io.h>
#include <kj/time.h>
#include <optional>
#include <string>
#include <vector>

#include "evidence/limits.h"
#include "evidence/scenario.h"
#include "supervisor/links/helper-process.h"

namespace rea::supervisor {

struct ShimLaunch {
  std::vector<evidence::CommandShim> shims;  // the scenario's command_shims (validated), ≥1
  std::string shimsDirectory;                // <temp root>/shims, exists and is empty
  uint32_t protocolEventLimit =              // limits.protocol_events
      uint32_t(evidence::limit::PROTOCOL_EVENTS.defaultValue);
  uint64_t t0Ns = 0;       // the capture's T0: no call is older
  std::string netnsPath;   // A9 loopback: the ledger listens in the target's namespace
  std::string usernsPath;  // and enters this user namespace first (empty: none)
};

struct ShimCall {
  // One recorded ledger request (B §7.3), raw: arguments and directory are normalised at
  // assembly.
  enum class Outcome { MATCHED, UNMATCHED, EXHAUSTED };
  uint32_t sequence = 0;
  uint64_t atNs = 0;  // CLOCK_MONOTONIC
  std::string command;
  std::vector<std::string> arguments;
  std::string workingDirectory;
  std::optional<uint32_t> routeIndex;  // nullopt exactly when UNMATCHED
  Outcome outcome = Outcome::UNMATCHED;
};

struct ShimRecord {
  // Everything the link received. Complete once finish() has resolved.
  uint16_t port = 0;  // the ledger's port (harness-allocated: normalised, A5)
  std::vector<ShimCall> calls;
  bool streamDone = false;             // the helper ended its stream with done()
  bool truncated = false;              // calls answered but not recorded (protocol_events)
  uint64_t droppedCalls = 0;           // how many
  std::optional<HelperFault> fault;    // set when the helper was lost before its job was done
  std::optional<HelperEnd> helperEnd;  // how the helper process ended (after finish())
};

class ShimLink {
 public:
  explicit ShimLink(kj::AsyncIoContext& io, std::string helperDirectory = defaultHelperDirectory());
  // `helperDirectory` holds rea-shim and rea-shim-client.

  ~ShimLink() noexcept(false);
  // Kills the helper if it still runs.

  KJ_DISALLOW_COPY(ShimLink);

  void spawnEarly();
  // Optional, before start(): spawns rea-shim and sends its RPC bootstrap now, so that the
  // helper's start-up overlaps the capture's preparation (PtyLink::spawnEarly does the same).
  // Never throws: a spawn failure is start()'s rejection, and so is a helper that ended before
  // start().

  kj::Promise<std::string> start(ShimLaunch launch);
  // Spawns rea-shim (unless spawnEarly() did), which writes the shim files and starts the
  // ledger; resolves with the ledger URL `http://127.0.0.1:<port>/invoke` (REA_SHIM_LEDGER_URL,
  // B §6.3). Call once. A launch out of range rejects (FAILED) before anything is sent.

  kj::Promise<void> finish(kj::Duration deadline = 5 * kj::SECONDS);
  // Stops the ledger (later shim calls exit 127), receives the rest of the stream and reaps the
  // helper. If it does not complete within `deadline` it is killed and recorded as a fault.
  // Resolves (never rejects). Call once, after start() resolved or failed.

  const ShimRecord& record() const;

  class Impl;

 private:
  kj::Own<Impl> impl;
};

}  // namespace rea::supervisor
