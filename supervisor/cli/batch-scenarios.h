#pragma once
// The scenarios a `rea capture-batch` runs (issue 21) and where their results go.
//
// Source: a directory, searched recursively for `*.json` files (entries whose name starts with
// '.' are skipped, symlinked directories are not followed, and the results directory is skipped
// when it lies inside), or a list file: one scenario path per line, relative to the list file's
// directory unless absolute; blank lines and lines starting with '#' are ignored. Each scenario
// gets the id of evidence/batch-corpus.h from its path relative to the directory (for a list,
// as written, lexically normalised).
//
// Results directory layout (shared by every shard's worker; each id is written by one worker):
//   evidence/<id>.json   the capture Evidence, complete (renamed into place when it is)
//   errors/<id>.json     the B §2.4 error object of the scenario's latest failed capture
//   logs/<id>.txt        what the capture wrote on stderr (warnings), when anything
//   results.json         this batch's record (results-shard-I-of-N.json for a shard)
//   evidence/.<id>.json.partial  a capture in progress (never an id: ids do not start with '.')
//
// Errors: none thrown; a problem is the B §2.4 error object to print.

#include <optional>
#include <string>
#include <vector>

#include "evidence/error.h"

namespace rea::supervisor {

struct BatchScenario {
  std::string id;
  std::string file;  // the path to open, as found or resolved against the list's directory
};

struct BatchScenarios {
  std::vector<BatchScenario> scenarios;  // sorted by id
  std::optional<evidence::CommandError> error;
};

BatchScenarios findBatchScenarios(const std::string& source, const std::string& resultsDir);
// Errors: the source cannot be read; it holds no scenario; two paths give one id (impossible
// for a directory, possible for a list naming a file twice).

struct BatchPaths {
  std::string evidence, errors, logs;  // the three directories

  std::string evidenceFile(const std::string& id) const { return evidence + "/" + id + ".json"; }
  std::string partialFile(const std::string& id) const {
    return evidence + "/." + id + ".json.partial";
  }
  std::string errorFile(const std::string& id) const { return errors + "/" + id + ".json"; }
  std::string logFile(const std::string& id) const { return logs + "/" + id + ".txt"; }
};

BatchPaths batchPaths(const std::string& resultsDir);

std::optional<evidence::CommandError> makeBatchDirectories(const BatchPaths& paths);
// Creates the results directory and its three subdirectories (existing ones are fine).

std::vector<std::string> idsInDirectory(const std::string& dir);
// The ids of `dir`/*.json (hidden files skipped), sorted; empty when `dir` does not exist.

}  // namespace rea::supervisor
