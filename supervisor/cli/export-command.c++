// `rea export-asciicast CAPTURE.json` (ours): prints the capture's terminal stream as an
// asciicast v2 recording (evidence/asciicast.h), so `asciinema play` shows what the target
// showed. The capture is imported and validated first: a tampered file is refused, never
// half-exported.
#include "evidence/asciicast.h"
#include "supervisor/cli/capture-evidence-file.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/output.h"

namespace rea::supervisor {

int runExportAsciicastCommand(const std::vector<std::string>& args) {
  CommandLine line("export-asciicast");
  if (auto usage = line.parse(args, 1, "expected one capture Evidence file")) return *usage;
  CaptureEvidenceFile read;
  if (auto error = readCaptureEvidence(line.files[0], read)) return printError(*error, false);
  return printText(evidence::toAsciicast(read.capture));
}

}  // namespace rea::supervisor
