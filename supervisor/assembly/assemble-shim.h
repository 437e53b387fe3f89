#pragma once
// Assembly of the shim ledger's record into `shim_events` (SPEC B §4.3, §7.3; A3, A5, A6): one
// ShimEvent per recorded call in ledger order, `at_ms` from T0 and bucketed (A6), `arguments`
// and `working_directory` normalised with N(·, temp root, root pid) (the caller's context also
// redacts secrets and sensitive echoes, A3, and replaces the ledger's own port, A5); `command`
// is kept as the client sent it. Pure: no clocks, no I/O.
//
// Errors: none (assembly of a finished run is total).

#include <cstdint>
#include <functional>
#include <vector>

#include "evidence/capture.h"
#include "evidence/normalise.h"
#include "supervisor/links/shim-link.h"

namespace rea::supervisor {

std::vector<evidence::ShimEvent> assembleShimEvents(
    const ShimRecord& record, const std::function<int64_t(uint64_t atNs)>& bucketedMs,
    const evidence::NormaliseContext& context);
// `bucketedMs` is the capture's clock (ms since T0, clamped at 0, bucketed); `context` is the
// capture's normalisation context with temporaryRoot = the temp root, pids = {root pid} and
// harnessPorts holding the ledger's port.

}  // namespace rea::supervisor
