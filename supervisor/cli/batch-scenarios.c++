#include "supervisor/cli/batch-scenarios.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "evidence/batch-corpus.h"

namespace rea::supervisor {

using namespace rea::evidence;
namespace fs = std::filesystem;

namespace {

bool endsWithJson(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
}

std::optional<CommandError> walkDirectory(const fs::path& root, const std::string& resultsDir,
                                          std::vector<BatchScenario>& out) {
  std::error_code failure;
  fs::path results = fs::weakly_canonical(resultsDir, failure);
  fs::recursive_directory_iterator it(root, failure), end;
  if (failure) return inputUnreadable(root.string());
  for (; it != end; it.increment(failure)) {
    if (failure) return inputUnreadable(root.string());
    std::string name = it->path().filename().string();
    bool isDirectory = it->is_directory(failure);
    if (!name.empty() && name[0] == '.') {
      if (isDirectory) it.disable_recursion_pending();
      continue;
    }
    if (isDirectory) {
      std::error_code ignored;
      if (fs::weakly_canonical(it->path(), ignored) == results) it.disable_recursion_pending();
      continue;
    }
    if (!endsWithJson(name) || !it->is_regular_file(failure)) continue;
    std::string relative = it->path().lexically_relative(root).string();
    out.push_back(BatchScenario{scenarioId(relative), it->path().string()});
  }
  return std::nullopt;
}

std::optional<CommandError> readList(const fs::path& list, std::vector<BatchScenario>& out) {
  std::ifstream in(list);
  if (!in) return inputUnreadable(list.string());
  fs::path base = list.parent_path();
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
      line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    fs::path path = fs::path(line).lexically_normal();
    std::string named = path.string();
    if (path.is_absolute()) named = named.substr(1);  // the id of /a/b.json is a~b
    fs::path file = path.is_absolute() || base.empty() ? path : base / path;
    out.push_back(BatchScenario{scenarioId(named), file.string()});
  }
  if (in.bad()) return inputUnreadable(list.string());
  return std::nullopt;
}

}  // namespace

BatchScenarios findBatchScenarios(const std::string& source, const std::string& resultsDir) {
  BatchScenarios result;
  std::error_code failure;
  auto status = fs::status(source, failure);
  if (failure || !fs::exists(status)) {
    result.error = inputUnreadable(source);
    return result;
  }
  auto error = fs::is_directory(status) ? walkDirectory(source, resultsDir, result.scenarios)
                                        : readList(source, result.scenarios);
  if (error) {
    result.error = error;
    return result;
  }
  if (result.scenarios.empty()) {
    result.error = executionFailure("The batch source holds no scenario (*.json) file.");
    return result;
  }
  std::sort(result.scenarios.begin(), result.scenarios.end(),
            [](const BatchScenario& a, const BatchScenario& b) { return a.id < b.id; });
  for (size_t i = 1; i < result.scenarios.size(); ++i) {
    if (result.scenarios[i].id == result.scenarios[i - 1].id) {
      result.error = executionFailure("The batch names one scenario twice (id " +
                                      result.scenarios[i].id + ").");
      return result;
    }
  }
  return result;
}

BatchPaths batchPaths(const std::string& resultsDir) {
  return BatchPaths{resultsDir + "/evidence", resultsDir + "/errors", resultsDir + "/logs"};
}

std::optional<CommandError> makeBatchDirectories(const BatchPaths& paths) {
  for (const auto& dir : {paths.evidence, paths.errors, paths.logs}) {
    std::error_code failure;
    fs::create_directories(dir, failure);
    if (failure) return executionFailure("The results directory cannot be created or written.");
  }
  return std::nullopt;
}

std::vector<std::string> idsInDirectory(const std::string& dir) {
  std::vector<std::string> ids;
  std::error_code failure;
  for (fs::directory_iterator it(dir, failure), end; !failure && it != end; it.increment(failure)) {
    std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.' || !endsWithJson(name)) continue;
    ids.push_back(name.substr(0, name.size() - 5));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace rea::supervisor
