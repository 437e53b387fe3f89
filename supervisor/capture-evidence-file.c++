#include "supervisor/capture-evidence-file.h"

#include <nlohmann/json.hpp>

#include "evidence/evidence-record.h"
#include "supervisor/input-file.h"

namespace rea::supervisor {

using namespace rea::evidence;

std::optional<CommandError> readCaptureEvidence(const std::string& file, CaptureEvidenceFile& out) {
  auto input = readJsonFile(file);
  if (input.error) return input.error;
  auto imported = importCaptureEvidence(*input.value);
  switch (imported.failure) {
    case EvidenceFailure::NONE:
      break;
    case EvidenceFailure::NOT_CURRENT_WORKFLOW:
      return evidenceNotCurrentWorkflow(file);
    case EvidenceFailure::LEGACY_CAPTURE:
      return evidenceLegacyV3(file);
    default:
      return evidenceMalformed(file, imported.issues);
  }
  out.evidenceId = imported.evidenceId;
  out.capture = std::move(*imported.capture);
  return std::nullopt;
}

}  // namespace rea::supervisor
