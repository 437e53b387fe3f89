#pragma once
// Where a command's result goes (capture-process, compare-process-captures): the full JSON
// document for programs, a short summary in words for a person. `-o FILE` writes the JSON to
// FILE (whole or not at all); `--format json|text` chooses what goes to stdout. Without
// `--format`, stdout gets the summary when it is a terminal or when the JSON went to `-o`,
// and the JSON otherwise — so scripts and pipes see exactly what they always saw.
//
// Errors: none thrown; a failed write is one line on stderr and exit code 1.

#include <string>

#include <CLI/CLI.hpp>

#include "evidence/json.h"

namespace rea::supervisor {

struct ResultOptions {
  std::string outputFile;  // -o; empty or "-" for stdout
  std::string format;      // "json", "text" or empty (decided by where stdout goes)
  bool pretty = false;
};

void addResultOptions(CLI::App& app, ResultOptions& options);
// Registers --pretty, -o/--output and --format.

bool summaryOnStdout(const ResultOptions& options);
// Whether stdout gets the summary in words (else the JSON).

int deliverResult(const evidence::Json& result, const std::string& summary,
                  const ResultOptions& options);
// Writes the JSON to the -o file when given, then the JSON or the summary to stdout. Returns
// the exit code (0, or 1 when a write failed).

}  // namespace rea::supervisor
