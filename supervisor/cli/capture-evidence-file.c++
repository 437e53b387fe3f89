#include "supervisor/cli/capture-evidence-file.h"

#include <nlohmann/json.hpp>

#include "evidence/evidence-record.h"
#include "supervisor/cli/input-file.h"

namespace rea::supervisor {

using namespace rea::evidence;

std::optional<CommandError> readCaptureEvidence(const std::string& file, CaptureEvidenceFile& out) {
  auto input = readJsonFile(file);
  if (input.error) return input.error;
  auto imported = importCaptureEvidence(std::move(*input.value));
  switch (imported.failure) {
    case EvidenceFailure::NONE:
      break;
    case EvidenceFailure::NOT_CURRENT_WORKFLOW:
      return evidenceNotCurrentWorkflow(file);
    case EvidenceFailure::LEGACY_CAPTURE:
      return evidenceLegacyV3(file);
    case EvidenceFailure::ID_MISMATCH:
      // Every member is committed to by the evidence_id: a file edited after rea wrote it
      // fails here, and the message says which commitment broke.
      return evidenceMalformed(file,
                               {Issue{"evidence_id",
                                      "does not match the record's content (a member was changed "
                                      "after rea wrote it)"}});
    default:
      if (imported.issues.empty() && !imported.detail.empty()) {
        return evidenceMalformed(file, {Issue{"", imported.detail}});
      }
      return evidenceMalformed(file, imported.issues);
  }
  out.evidenceId = imported.evidenceId;
  out.capture = std::move(*imported.capture);
  return std::nullopt;
}

}  // namespace rea::supervisor
