// `rea compare-batch [OPTIONS] LEFT RIGHT --out REPORT` (issue 21): pairs the scenarios of two
// capture-batch results directories by id (every shard's worker writes into one directory, so
// this is where shards merge), compares each pair exactly as compare-process-captures does
// (capture-comparison.h), and writes into REPORT:
//   pairs/ID.json    the pair's comparison Evidence
//   pairs/ID.html    the pair's page, as `rea report` makes it (evidence/report-html.h)
//   summary.json     counts, each pair's status and first divergence, one-sided scenarios
//                    (evidence/batch-summary.h)
//   index.html       the summary as a page linking each pair's report
// each written whole or not at all. The summary also goes to stdout (JSON, or words on a
// terminal). A pair that cannot be compared (a side's capture failed, its Evidence is
// malformed, the two were made under different comparison contracts) is a `failed` pair in the
// summary, not the end of the command.
//
// --exit-code: 0 when every pair is unchanged and nothing is on one side only or failed, 1
// otherwise, 2 an error; without it 0 whenever the summary was written.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "evidence/batch-summary.h"
#include "evidence/capture.h"
#include "evidence/compare.h"
#include "evidence/evidence-record.h"
#include "evidence/report-html.h"
#include "supervisor/cli/batch-scenarios.h"
#include "supervisor/cli/capture-comparison.h"
#include "supervisor/cli/capture-evidence-file.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/input-file.h"
#include "supervisor/cli/output.h"
#include "supervisor/cli/result-output.h"

namespace rea::supervisor {

using namespace rea::evidence;
namespace fs = std::filesystem;

namespace {

// Writes `text` beside `path` and renames it over `path`.
bool writeTextFile(const std::string& path, const std::string& text) {
  std::string temporary = path + ".rea-" + std::to_string(getpid()) + ".tmp";
  FILE* file = std::fopen(temporary.c_str(), "we");
  if (file == nullptr) return false;
  bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  written = std::fflush(file) == 0 && fsync(fileno(file)) == 0 && written;
  if (std::fclose(file) != 0) written = false;
  if (written && std::rename(temporary.c_str(), path.c_str()) == 0) return true;
  std::remove(temporary.c_str());
  return false;
}

std::vector<std::string> unionOf(const std::vector<std::string>& a,
                                 const std::vector<std::string>& b) {
  std::vector<std::string> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

bool holds(const std::vector<std::string>& sorted, const std::string& id) {
  return std::binary_search(sorted.begin(), sorted.end(), id);
}

// What a side has for `id`: its Evidence file, or the error object of its failed capture.
struct Side {
  const BatchPaths& paths;
  std::vector<std::string> evidence, errors;

  bool has(const std::string& id) const { return holds(evidence, id) || holds(errors, id); }
  std::optional<Json> errorOf(const std::string& id) const {
    if (holds(evidence, id)) return std::nullopt;
    auto input = readJsonFile(paths.errorFile(id));
    if (input.error) return input.error->toJson();
    return *input.value;
  }
};

}  // namespace

int runCompareBatchCommand(const std::vector<std::string>& args) {
  CommandLine line("compare-batch");
  ResultOptions result;
  CompareOptions options;
  std::string outDir, toleranceText;
  bool exitCode = false;
  line.app.add_flag("--pretty", result.pretty);
  line.app.add_option("--format", result.format)->check(CLI::IsMember({"json", "text"}));
  line.app.add_option("--out", outDir);
  line.app.add_flag("--exit-code", exitCode);
  line.app.add_flag("--baseline-semantics", options.baselineSemantics);
  auto* tolerance = line.app.add_option("--timing-tolerance-ms", toleranceText);
  if (auto usage = line.parse(args, 2, "expected two capture-batch results directories")) {
    return *usage;
  }
  if (outDir.empty()) return usageError("--out REPORT is required", "compare-batch");
  if (tolerance->count() > 0) {
    int64_t value;
    if (auto usage = line.count("--timing-tolerance-ms", toleranceText, value)) return *usage;
    options.timingToleranceMs = value;
  }
  auto fail = [&](const CommandError& error) {
    int failed = printError(error, result.pretty);
    return exitCode ? 2 : failed;
  };
  for (const auto& dir : line.files) {
    std::error_code failure;
    if (!fs::is_directory(dir, failure)) return fail(inputUnreadable(dir));
  }
  BatchPaths leftPaths = batchPaths(line.files[0]), rightPaths = batchPaths(line.files[1]);
  Side left{leftPaths, idsInDirectory(leftPaths.evidence), idsInDirectory(leftPaths.errors)};
  Side right{rightPaths, idsInDirectory(rightPaths.evidence), idsInDirectory(rightPaths.errors)};
  std::error_code failure;
  fs::create_directories(outDir + "/pairs", failure);
  if (failure) return fail(executionFailure("The report directory cannot be created."));

  std::vector<Json> pairs;
  std::vector<std::string> leftOnly, rightOnly;
  for (const auto& id :
       unionOf(unionOf(left.evidence, left.errors), unionOf(right.evidence, right.errors))) {
    if (!right.has(id)) {
      leftOnly.push_back(id);
      continue;
    }
    if (!left.has(id)) {
      rightOnly.push_back(id);
      continue;
    }
    auto leftError = left.errorOf(id), rightError = right.errorOf(id);
    if (leftError || rightError) {
      pairs.push_back(
          failedPair(id, leftError ? &*leftError : nullptr, rightError ? &*rightError : nullptr));
      continue;
    }
    // As compareCaptureFiles() does, but each side's problem is reported as that side's.
    CaptureComparison compared;
    std::string leftFile = leftPaths.evidenceFile(id), rightFile = rightPaths.evidenceFile(id);
    auto leftBad = readCaptureEvidence(leftFile, compared.left);
    auto rightBad = readCaptureEvidence(rightFile, compared.right);
    if (leftBad || rightBad) {
      Json leftJson = leftBad ? leftBad->toJson() : Json(),
           rightJson = rightBad ? rightBad->toJson() : Json();
      pairs.push_back(
          failedPair(id, leftBad ? &leftJson : nullptr, rightBad ? &rightJson : nullptr));
      continue;
    }
    if (auto refusal = comparisonRefusal(compared.left.capture, compared.right.capture,
                                         std::nullopt, epochNowMs())) {
      pairs.push_back(failedPair(id, nullptr, nullptr, *refusal));
      continue;
    }
    compared.comparison =
        compareCaptures(toJson(compared.left.capture), toJson(compared.right.capture), options);
    const Json& comparison = *compared.comparison;
    Json evidence = buildComparisonEvidence(compared.left.evidenceId, compared.right.evidenceId,
                                            *compared.left.capture.normalization,
                                            *compared.right.capture.normalization, comparison);
    ReportSide leftSide{leftFile, compared.left.evidenceId, compared.left.capture};
    ReportSide rightSide{rightFile, compared.right.evidenceId, compared.right.capture};
    std::string pairBase = outDir + "/pairs/" + id;
    if (writeJsonFile(pairBase + ".json", evidence, true) != 0 ||
        !writeTextFile(pairBase + ".html", renderReportHtml(leftSide, rightSide, comparison))) {
      return fail(executionFailure("The report directory cannot be written."));
    }
    pairs.push_back(comparedPair(id, comparison));
  }

  Json summary =
      summariseBatch(line.files[0], line.files[1], std::move(pairs), leftOnly, rightOnly);
  if (writeJsonFile(outDir + "/summary.json", summary, true) != 0 ||
      !writeTextFile(outDir + "/index.html", renderBatchIndexHtml(summary))) {
    return fail(executionFailure("The report directory cannot be written."));
  }
  int delivered = deliverResult(summary, summariseBatchText(summary), result);
  if (!exitCode) return delivered;
  if (delivered != 0) return 2;
  return summary["status"] == "unchanged" && summary["complete"].get<bool>() ? 0 : 1;
}

}  // namespace rea::supervisor
