// `rea report [OPTIONS] LEFT RIGHT` (issue 9): the comparison of compare-process-captures, as
// one self-contained HTML page on stdout (evidence/report-html.h). Same inputs, checks and
// error objects as compare (capture-comparison.h); the page is written in full or not at all.
#include "evidence/report-html.h"
#include "supervisor/cli/capture-comparison.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/output.h"

namespace rea::supervisor {

using namespace rea::evidence;

int runReportCommand(const std::vector<std::string>& args) {
  CommandLine line("report");
  CompareOptions options;
  std::string toleranceText;
  line.app.add_flag("--baseline-semantics", options.baselineSemantics);
  auto* tolerance = line.app.add_option("--timing-tolerance-ms", toleranceText);
  if (auto usage = line.parse(args, 2, "expected two capture Evidence files")) return *usage;
  if (tolerance->count() > 0) {
    int64_t value;
    if (auto usage = line.count("--timing-tolerance-ms", toleranceText, value)) return *usage;
    options.timingToleranceMs = value;
  }
  const auto& files = line.files;

  CaptureComparison compared;
  if (auto error = compareCaptureFiles(files[0], files[1], options, std::nullopt, compared)) {
    return printError(*error, false);
  }
  ReportSide left{files[0], compared.left.evidenceId, compared.left.capture};
  ReportSide right{files[1], compared.right.evidenceId, compared.right.capture};
  return printText(renderReportHtml(left, right, *compared.comparison));
}

}  // namespace rea::supervisor
