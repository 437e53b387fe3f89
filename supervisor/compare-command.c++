// `rea compare-process-captures [OPTIONS] LEFT RIGHT` (SPEC B §9, §10.1, A7): reads both
// Evidence files, imports and validates each capture, requires equal comparison contracts,
// compares and prints the comparison Evidence. A short human summary goes to stderr when
// stderr is a terminal.
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <optional>

#include <nlohmann/json.hpp>

#include "evidence/capture.h"
#include "evidence/compare.h"
#include "evidence/error.h"
#include "evidence/evidence-record.h"
#include "evidence/timestamp.h"
#include "supervisor/capture-evidence-file.h"
#include "supervisor/commands.h"
#include "supervisor/output.h"

namespace rea::supervisor {
namespace {

using namespace rea::evidence;

struct Side {
  std::string evidenceId;
  Json capture;  // toJson of the imported (validated, unknown members dropped) capture
  Capture model;
};

std::optional<CommandError> importSide(const std::string& file, Side& side) {
  CaptureEvidenceFile read;
  if (auto error = readCaptureEvidence(file, read)) return error;
  side.evidenceId = std::move(read.evidenceId);
  side.model = std::move(read.capture);
  side.capture = toJson(side.model);
  return std::nullopt;
}

std::string differingContractFields(const Json& left, const Json& right) {
  std::string out;
  auto note = [&](const std::string& key) {
    if (!out.empty()) out += ", ";
    out += key;
  };
  for (auto it = left.begin(); it != left.end(); ++it) {
    if (!right.contains(it.key()) || right[it.key()] != it.value()) note(it.key());
  }
  for (auto it = right.begin(); it != right.end(); ++it) {
    if (!left.contains(it.key())) note(it.key());
  }
  return out;
}

bool parseCount(const std::string& text, int64_t& out) {
  if (text.empty() || text.size() > 15) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  out = std::stoll(text);
  return true;
}

}  // namespace

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

  Side left, right;
  if (auto error = importSide(files[0], left)) return printError(*error, pretty);
  if (auto error = importSide(files[1], right)) return printError(*error, pretty);

  if (left.model.manifest.comparisonContractSha256 !=
      right.model.manifest.comparisonContractSha256) {
    return printError(
        executionFailure("The two captures were made under incompatible comparison contracts; "
                         "these fields differ: " +
                         differingContractFields(*left.model.manifest.comparisonContract,
                                                 *right.model.manifest.comparisonContract) +
                         "."),
        pretty);
  }
  if (maxAgeMs) {
    auto leftDone = parseIsoTimestamp(left.model.manifest.completedAt);
    auto rightDone = parseIsoTimestamp(right.model.manifest.completedAt);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t nowMs = static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
    if (auto tooOld =
            checkCaptureAge(maxAgeMs, nowMs, leftDone.value_or(0), rightDone.value_or(0))) {
      return printError(executionFailure(*tooOld + "."), pretty);
    }
  }

  Json comparison = compareCaptures(left.capture, right.capture, options);
  Json evidence =
      buildComparisonEvidence(left.evidenceId, right.evidenceId, *left.model.normalization,
                              *right.model.normalization, comparison);
  if (isatty(STDERR_FILENO)) std::fputs(summariseComparison(comparison).c_str(), stderr);
  return printJson(evidence, pretty);
}

}  // namespace rea::supervisor
