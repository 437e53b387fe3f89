#include "supervisor/cli/result-output.h"

#include <unistd.h>

#include "supervisor/cli/output.h"

namespace rea::supervisor {
namespace {

bool toFile(const ResultOptions& options) {
  return !options.outputFile.empty() && options.outputFile != "-";
}

}  // namespace

void addResultOptions(CLI::App& app, ResultOptions& options) {
  app.add_flag("--pretty", options.pretty);
  app.add_option("-o,--output", options.outputFile);
  app.add_option("--format", options.format)->check(CLI::IsMember({"json", "text"}));
}

bool summaryOnStdout(const ResultOptions& options) {
  if (!options.format.empty()) return options.format == "text";
  return toFile(options) || isatty(STDOUT_FILENO);
}

int deliverResult(const evidence::Json& result, const std::string& summary,
                  const ResultOptions& options) {
  if (toFile(options)) {
    if (int failed = writeJsonFile(options.outputFile, result, options.pretty)) return failed;
  }
  if (summaryOnStdout(options)) return printText(summary);
  return printJson(result, options.pretty);
}

}  // namespace rea::supervisor
