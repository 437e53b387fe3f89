// `rea report [OPTIONS] LEFT RIGHT` (issue 9): the comparison of compare-process-captures, as
// one self-contained HTML page on stdout (evidence/report-html.h). Same inputs, checks and
// error objects as compare (capture-comparison.h); the page is written in full or not at all.
#include "evidence/report-html.h"
#include "supervisor/capture-comparison.h"
#include "supervisor/commands.h"
#include "supervisor/output.h"

namespace rea::supervisor {

using namespace rea::evidence;

int runReportCommand(const std::vector<std::string>& args) {
  CompareOptions options;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--baseline-semantics") {
      options.baselineSemantics = true;
    } else if (arg == "--timing-tolerance-ms") {
      int64_t value;
      if (i + 1 >= args.size() || !parseCount(args[i + 1], value)) {
        return usageError(arg + " needs a non-negative integer", "report");
      }
      ++i;
      options.timingToleranceMs = value;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option: " + arg, "report");
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 2) return usageError("expected two capture Evidence files", "report");

  CaptureComparison compared;
  if (auto error = compareCaptureFiles(files[0], files[1], options, std::nullopt, compared)) {
    return printError(*error, false);
  }
  ReportSide left{files[0], compared.left.evidenceId, compared.left.capture};
  ReportSide right{files[1], compared.right.evidenceId, compared.right.capture};
  return printText(renderReportHtml(left, right, *compared.comparison));
}

}  // namespace rea::supervisor
