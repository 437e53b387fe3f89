#pragma once
// The comparison of two capture Evidence files named on the command line, shared by the commands
// that compare (`compare-process-captures`, `report`): read and import each side
// (capture-evidence-file.h), require equal comparison contracts (SPEC B §9.1 rule 2, naming the
// contract fields that differ), apply `--max-capture-age-ms` when given (rule 3, with the real
// clock), then evidence/compare.h compareCaptures().
//
// Errors: none thrown; a failure is the B §2.4 error object the command prints (left is read and
// checked before right, so the first problem is reported, as B §10.1 orders it).

#include <cstdint>
#include <optional>
#include <string>

#include "evidence/capture.h"
#include "evidence/compare.h"
#include "evidence/error.h"
#include "supervisor/cli/capture-evidence-file.h"

namespace rea::supervisor {

struct CaptureComparison {
  CaptureEvidenceFile left;
  CaptureEvidenceFile right;
  evidence::JsonBox comparison;  // the comparison object (B §9.6 `normalized_result`)
};

std::optional<evidence::CommandError> compareCaptureFiles(const std::string& leftFile,
                                                          const std::string& rightFile,
                                                          const evidence::CompareOptions& options,
                                                          std::optional<int64_t> maxCaptureAgeMs,
                                                          CaptureComparison& out,
                                                          bool keepFrames = true);
// Fills `out` and returns nullopt, or returns the error (and leaves `out` unspecified).
// `keepFrames` false moves the captures' raw and rendered frames into the comparison instead of
// copying them (most of a capture): `out`'s captures are left without them.

std::optional<std::string> comparisonRefusal(const evidence::Capture& left,
                                             const evidence::Capture& right,
                                             std::optional<int64_t> maxCaptureAgeMs,
                                             int64_t nowEpochMs);
// B §9.1 rules 2 and 3 for two imported captures: the sentence saying why they may not be
// compared (their comparison contracts differ, naming the fields; one is older than
// `maxCaptureAgeMs` at `nowEpochMs`), or nullopt. Shared with `rea mcp`, which reports it as
// an integrity error instead of an execution failure.

int64_t epochNowMs();
// The application clock of the age check: CLOCK_REALTIME in ms.

}  // namespace rea::supervisor
