#pragma once
// Process sample renumbering (SPEC B §4.6.4): turns raw samples of the target's process tree
// into the recorded `process_samples`, replacing real process ids (which differ on every run)
// by small numbers in order of first appearance and normalising each command line.
//
// Identifier numbering: the list [rootPid, then per sample in order: pid, parentPid, pgid or 0,
// sid or 0] gives 1, 2, 3... to each distinct positive id at its first appearance (root -> 1;
// the root's parent, i.e. the harness, gets a number too). `pid` falls back to 1 and
// `parentPid` to 0 when not positive; `processGroupId`/`sessionId` stay null when null and fall
// back to 0 when not positive.
//
// Command: N(command) with the temp-root placeholder (so the temp root is *not* normalised in
// commands) and the root pid as the only pid; then, if the context's `normalisePids` is on,
// every positive raw id of the list is replaced by `<pid>` with the same digit-boundary rule.
// Commands are not trimmed. With A5 ports, `--parent=400` is no longer a port: a listed 400
// becomes `<pid>` in the second pass (B's example gave `<port>`).
//
// Errors: throws std::invalid_argument for a non-positive time bucket (see bucketMs()).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "evidence/capture.h"
#include "evidence/normalise.h"

namespace rea::evidence {

struct RawProcessSample {
  int64_t atMs;  // ms since T0 at the start of the sampling pass, not yet bucketed
  int64_t pid;
  int64_t parentPid;
  std::optional<int64_t> processGroupId;
  std::optional<int64_t> sessionId;
  std::string command;
};

std::vector<ProcessSample> renumberProcessSamples(const std::vector<RawProcessSample>& samples,
                                                  int64_t rootPid, const NormaliseContext& context,
                                                  int64_t timeBucketMs);
// `context.temporaryRoot` and `context.pids` are ignored (replaced by NO_TEMPORARY_ROOT and
// {rootPid} as B §4.6.1 prescribes for commands); everything else in it applies.

}  // namespace rea::evidence
