#pragma once
// Secrets in the strings that are recorded as they were found, not as text (issue 18.3, A3):
// file names and symlink targets under the filesystem roots (files_before, files_after,
// checkpoints, filesystem_effects), checkpoint names, and the method and path of protocol
// events. Those are not normalised (a path is data, not output), but a name that holds a
// `secret_aliases` value, or the echo of a sensitive input, must not reach the Evidence either:
// each such value becomes `<redacted>`, exactly as N(·) step 1 does, and nothing else changes.
// Lists sorted by path are sorted again afterwards (UTF-16 order, B §4.7).
//
// Errors: none thrown (apart from std::bad_alloc).

#include <vector>

#include "evidence/capture.h"
#include "evidence/normalise.h"

namespace rea::supervisor {

evidence::NormaliseContext secretsOnly(const evidence::NormaliseContext& base);
// The secret and sensitive-input part of `base`; no paths, pids, ports or patterns.

void redactFileStates(std::vector<evidence::FileState>& files, const evidence::Normaliser& redact);
void redactFileEffects(std::vector<evidence::FileEffect>& effects,
                       const evidence::Normaliser& redact);
void redactCheckpoints(std::vector<evidence::Checkpoint>& checkpoints,
                       const evidence::Normaliser& redact);
void redactProtocolEvents(std::vector<evidence::ProtocolEvent>& events,
                          const evidence::Normaliser& redact);

}  // namespace rea::supervisor
