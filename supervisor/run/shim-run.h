#pragma once
// ShimRun: the command shims' part of one capture run (SPEC B §6.1 START "shims := write shim
// executables under TMP, start ledger server", §6.3 step 4, §7). When the scenario declares
// shims it spawns the shim helper with the other early helpers (spawnEarly), starts it (shim
// files, ledger) right after T0 and before the PTY, hands back the ledger URL for the target's
// environment, and at the end finishes the helper and moves its record into
// the run result (a lost helper becomes LostHelper{"shim", reason}, A13). Without declared shims
// it does nothing: no helper runs and REA_SHIM_LEDGER_URL is not set (the shim directory still
// heads PATH). Owns the ShimLink.
//
// Errors: start() rejects when the helper cannot be started or refuses the plan (the capture
// then fails: its target was never started). finish() never rejects.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kj/async-io.h>

#include "evidence/scenario.h"
#include "supervisor/links/shim-link.h"

namespace rea::supervisor {

struct CaptureRunResult;

class ShimRun {
 public:
  ShimRun(kj::AsyncIoContext& io, std::vector<evidence::CommandShim> shims,
          uint32_t protocolEventLimit);

  void spawnEarly();
  // With declared shims: spawns the helper now (ShimLink::spawnEarly), so that its start-up is
  // not on the way to T0. Optional; call before start().

  kj::Promise<std::optional<std::string>> start(uint64_t t0Ns, std::string shimsDirectory,
                                                std::string netnsPath = {},
                                                std::string usernsPath = {});
  // The namespace paths: a loopback capture's (ReplayStart), so the target can reach the ledger.
  // The ledger URL once the shim files exist and the ledger serves; nullopt without shims.

  kj::Promise<void> finish(CaptureRunResult& result);
  // Stops the ledger, completes the stream, reaps the helper; sets result.shims and notes a
  // lost helper. Call once, after start() resolved (or was never reached).

 private:
  kj::AsyncIoContext& io;
  std::vector<evidence::CommandShim> shims;
  uint32_t protocolEventLimit;
  kj::Maybe<kj::Own<ShimLink>> link;
};

}  // namespace rea::supervisor
