// `rea compare-process-captures [OPTIONS] LEFT RIGHT` (SPEC B §9, §10.1, A7): reads both
// Evidence files, imports and validates each capture, requires equal comparison contracts,
// compares (capture-comparison.h) and prints the comparison Evidence. A short human summary
// goes to stderr when stderr is a terminal.
#include <unistd.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "evidence/evidence-record.h"
#include "supervisor/capture-comparison.h"
#include "supervisor/commands.h"
#include "supervisor/output.h"

namespace rea::supervisor {

using namespace rea::evidence;

int runCompareCommand(const std::vector<std::string>& args) {
  bool pretty = false;
  CompareOptions options;
  std::optional<int64_t> maxAgeMs;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--pretty") {
      pretty = true;
    } else if (arg == "--baseline-semantics") {
      options.baselineSemantics = true;
    } else if (arg == "--timing-tolerance-ms" || arg == "--max-capture-age-ms") {
      int64_t value;
      if (i + 1 >= args.size() || !parseCount(args[i + 1], value)) {
        return usageError(arg + " needs a non-negative integer", "compare-process-captures");
      }
      ++i;
      (arg == "--timing-tolerance-ms" ? options.timingToleranceMs : maxAgeMs) = value;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option: " + arg, "compare-process-captures");
    } else {
      files.push_back(arg);
    }
  }
  if (files.size() != 2) {
    return usageError("expected two capture Evidence files", "compare-process-captures");
  }

  CaptureComparison compared;
  if (auto error = compareCaptureFiles(files[0], files[1], options, maxAgeMs, compared)) {
    return printError(*error, pretty);
  }
  const Json& comparison = *compared.comparison;
  Json evidence = buildComparisonEvidence(compared.left.evidenceId, compared.right.evidenceId,
                                          *compared.left.capture.normalization,
                                          *compared.right.capture.normalization, comparison);
  if (isatty(STDERR_FILENO)) std::fputs(summariseComparison(comparison).c_str(), stderr);
  return printJson(evidence, pretty);
}

}  // namespace rea::supervisor
