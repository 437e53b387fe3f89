#pragma once
// Protocol assembly (SPEC B §4.3, §4.5, §4.6.3, §4.8, §8.4; A5, A6, A13): turns the replay
// helper's record into the capture's `protocol_events` — at_ms from the recorder's origin,
// bucketed; `data` normalised and redacted with N(·, placeholder, no pids) — plus what the
// record means for `truncated` (protocol-event cap, over-limit request body, connection cap),
// and a `protocol` residual unknown and limitation when the target did things B §8 has no
// event for (malformed requests, bad frames, too many connections). Request bodies and headers
// never reach this module: the helper records only the B §4.6.3 placeholders.
//
// Errors: none (pure; the link validated the record).

#include <cstdint>
#include <string>
#include <vector>

#include "evidence/capture.h"
#include "evidence/normalise.h"
#include "supervisor/links/replay-link.h"

namespace rea::supervisor {

struct ProtocolAssembly {
  std::vector<evidence::ProtocolEvent> events;
  bool truncated = false;
  std::vector<std::string> limitations;
  std::vector<evidence::ResidualUnknown> residualUnknowns;
};

ProtocolAssembly assembleProtocol(const ReplayRecord& record,
                                  const evidence::NormaliseContext& base, int64_t timeBucketMs);
// `base` is the capture's normalisation context (secrets, sensitive echoes, paths, ports,
// patterns); the temporary root and pids are replaced here as B §4.6.1 says for protocol data.

}  // namespace rea::supervisor
