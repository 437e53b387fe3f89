#pragma once
// Loud limits: when a capture is truncated because it reached one of the scenario's `limits`,
// a limitation sentence names the limit, its value and what the capture would have needed, so
// a person reading the Evidence (or the summary and the warning on stderr that quote it) knows
// which number to raise. The `truncated` flag alone says only that something is missing.
//
// Errors: none.

#include <cstdint>
#include <string>
#include <vector>

#include "evidence/scenario.h"
#include "supervisor/links/pty-link.h"

namespace rea::supervisor {

constexpr char LIMIT_SENTENCE_PREFIX[] = "Limit reached: ";
// Every sentence below starts with it (the summary and the stderr warning find them by it).

std::vector<std::string> outputLimitSentences(const evidence::Scenario& scenario,
                                              const PtyRecord& pty);
// For dropped raw output (limits.output_bytes; A15: never limits.frames) and dropped rendered
// screens (one costlier than limits.output_bytes).
// Call before the raw output is consumed by assembly: it counts the accepted bytes.

std::string filesystemLimitSentence(const evidence::Scenario& scenario);
// For a truncated filesystem snapshot (limits.files, file_bytes or filesystem_depth).

std::string pidsLimitSentence(uint32_t maxPids, uint64_t refused);
// For a target whose process creations the operator's bound refused (REA_PROCESS_MAX_PIDS,
// helpers/sampler/pids-bound.h). The capture is not truncated: the refusals are the target's
// behaviour under that bound, and this sentence says so.

}  // namespace rea::supervisor
