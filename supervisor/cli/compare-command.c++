// `rea compare-process-captures [OPTIONS] LEFT RIGHT` (SPEC B §9, §10.1, A7): reads both
// Evidence files, imports and validates each capture, requires equal comparison contracts,
// compares (capture-comparison.h) and delivers the comparison Evidence (result-output.h: the
// JSON, or the per-dimension table and first divergence in words for a terminal). When the
// JSON goes to stdout and stderr is a terminal, the words go to stderr as well.
//
// --exit-code makes the status the exit code, like diff(1): 0 unchanged, 1 anything else
// (changed, unknown, truncated), 2 an error (its error object is printed as usual).
#include <unistd.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "evidence/compare-status.h"
#include "evidence/evidence-record.h"
#include "supervisor/cli/capture-comparison.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/output.h"
#include "supervisor/cli/result-output.h"

namespace rea::supervisor {

using namespace rea::evidence;

int runCompareCommand(const std::vector<std::string>& args) {
  CommandLine line("compare-process-captures");
  ResultOptions result;
  addResultOptions(line.app, result);
  CompareOptions options;
  bool exitCode = false;
  std::string toleranceText, maxAgeText;
  line.app.add_flag("--baseline-semantics", options.baselineSemantics);
  line.app.add_flag("--exit-code", exitCode);
  auto* tolerance = line.app.add_option("--timing-tolerance-ms", toleranceText);
  auto* maxAge = line.app.add_option("--max-capture-age-ms", maxAgeText);
  if (auto usage = line.parse(args, 2, "expected two capture Evidence files")) return *usage;
  std::optional<int64_t> maxAgeMs;
  int64_t value;
  if (tolerance->count() > 0) {
    if (auto usage = line.count("--timing-tolerance-ms", toleranceText, value)) return *usage;
    options.timingToleranceMs = value;
  }
  if (maxAge->count() > 0) {
    if (auto usage = line.count("--max-capture-age-ms", maxAgeText, value)) return *usage;
    maxAgeMs = value;
  }

  CaptureComparison compared;
  // Only the captures' ids and normalizations are used afterwards.
  if (auto error =
          compareCaptureFiles(line.files[0], line.files[1], options, maxAgeMs, compared, false)) {
    int failed = printError(*error, result.pretty);
    return exitCode ? 2 : failed;
  }
  const Json& comparison = *compared.comparison;
  Json evidence = buildComparisonEvidence(compared.left.evidenceId, compared.right.evidenceId,
                                          *compared.left.capture.normalization,
                                          *compared.right.capture.normalization, comparison);
  std::string summary = summariseComparison(comparison);
  if (!summaryOnStdout(result) && isatty(STDERR_FILENO)) std::fputs(summary.c_str(), stderr);
  int delivered = deliverResult(evidence, summary, result);
  if (!exitCode) return delivered;
  if (delivered != 0) return 2;
  auto status = evidence::parseCompareStatus(comparison.value("status", ""));
  return status == evidence::CompareStatus::UNCHANGED ? 0 : 1;
}

}  // namespace rea::supervisor
