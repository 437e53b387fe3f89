#pragma once
// Reading a capture Evidence file named on the command line (SPEC B §10.1): the file rules of
// input-file.h, then Evidence import with every check of B §5.4. Shared by the commands that
// consume captures (compare-process-captures, export-asciicast, report).
//
// Errors: none thrown; a failure is the matching B §2.4 error object naming the file.

#include <optional>
#include <string>

#include "evidence/capture.h"
#include "evidence/error.h"

namespace rea::supervisor {

struct CaptureEvidenceFile {
  std::string evidenceId;
  evidence::Capture capture;  // imported and validated; unknown members dropped
};

std::optional<evidence::CommandError> readCaptureEvidence(const std::string& file,
                                                          CaptureEvidenceFile& out);
// Fills `out` and returns nullopt, or returns the error (and leaves `out` unspecified).

}  // namespace rea::supervisor
