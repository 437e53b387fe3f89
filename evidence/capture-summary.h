#pragma once
// The capture in words, for a person at a terminal (`rea capture-process` when stdout is a
// terminal, or with --format text): what ran and how it ended, how much it showed (output,
// screens and the last screen's text), what it did (processes, files, shims, protocol), and
// what the Evidence cannot vouch for (truncation and the limit that caused it, residual
// unknowns). The JSON stays the record; this is a reading aid and carries nothing the JSON
// does not (so no secret the JSON has redacted).
//
// Pure. Errors: none; a member of an unexpected shape is shown as missing, never thrown.

#include <string>
#include <vector>

#include "evidence/json.h"

namespace rea::evidence {

std::string summariseCapture(const Json& captureEvidence);
// `captureEvidence` is the record `rea capture-process` prints (the capture is its
// `normalized_result`). Ends with a newline.

std::vector<std::string> limitWarnings(const Json& captureEvidence);
// One plain line per reason the capture is truncated ("rea: warning: ..."), for stderr; empty
// when it is not truncated.

}  // namespace rea::evidence
