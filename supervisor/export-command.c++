// `rea export-asciicast CAPTURE.json` (ours): prints the capture's terminal stream as an
// asciicast v2 recording (evidence/asciicast.h), so `asciinema play` shows what the target
// showed. The capture is imported and validated first: a tampered file is refused, never
// half-exported.
#include "evidence/asciicast.h"
#include "supervisor/capture-evidence-file.h"
#include "supervisor/commands.h"
#include "supervisor/output.h"

namespace rea::supervisor {

int runExportAsciicastCommand(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const auto& arg : args) {
    if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option: " + arg, "export-asciicast");
    }
    files.push_back(arg);
  }
  if (files.size() != 1)
    return usageError("expected one capture Evidence file", "export-asciicast");
  CaptureEvidenceFile read;
  if (auto error = readCaptureEvidence(files[0], read)) return printError(*error, false);
  return printText(evidence::toAsciicast(read.capture));
}

}  // namespace rea::supervisor
