// `rea capture-batch [OPTIONS] DIR|LIST --out RESULTS` (issue 21): captures every scenario of a
// corpus, each by its own `rea capture-process` child (batch-runner.h), `--jobs` at a time, into
// RESULTS (layout in batch-scenarios.h). A rerun keeps each Evidence that imports with every
// check of compare (capture-evidence-file.h) and still belongs to its scenario
// (evidence/batch-corpus.h), unless --force. A capture's Evidence is written to a hidden partial
// file and renamed into place only once the capture ended with it, so a batch killed at any
// moment leaves complete Evidence or none. A failed capture is a result (its error object in
// errors/), never the end of the batch.
//
// `--shard I/N` (or the engine's environment, evidence/batch-shard.h) makes this worker capture
// its share only; workers of one batch share RESULTS, and compare-batch reads them together.
//
// Exit: 0 when every scenario of the share has a result (captured, kept or failed: see the
// counts), 1 with an error object when the batch could not run or was stopped by a signal, 2 for
// a usage error.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "evidence/batch-corpus.h"
#include "evidence/batch-shard.h"
#include "evidence/error.h"
#include "evidence/scenario.h"
#include "supervisor/cli/batch-runner.h"
#include "supervisor/cli/batch-scenarios.h"
#include "supervisor/cli/capture-evidence-file.h"
#include "supervisor/cli/command-line.h"
#include "supervisor/cli/commands.h"
#include "supervisor/cli/input-file.h"
#include "supervisor/cli/output.h"
#include "supervisor/cli/result-output.h"

namespace rea::supervisor {

using namespace rea::evidence;

namespace {

constexpr int64_t MAX_JOBS = 256;

// Whether the Evidence on disk may be kept: complete, valid, and made from this scenario.
bool keepable(const BatchPaths& paths, const BatchScenario& scenario) {
  if (access(paths.evidenceFile(scenario.id).c_str(), F_OK) != 0) return false;
  CaptureEvidenceFile existing;
  if (readCaptureEvidence(paths.evidenceFile(scenario.id), existing)) return false;
  auto input = readJsonFile(scenario.file);
  if (input.error) return false;
  auto parsed = parseScenario(*input.value);
  return parsed.scenario && evidenceMatchesScenario(existing.capture, *parsed.scenario);
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The error object of a capture that ended without Evidence: the one it printed (exit 1), or
// one saying how the process ended.
Json failureOf(const std::string& stdoutFile, int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
    Json printed = Json::parse(readWhole(stdoutFile), nullptr, false);
    if (printed.is_object() && printed.contains("error")) return printed;
  }
  std::string how = WIFSIGNALED(status)
                        ? "was killed by signal " + std::to_string(WTERMSIG(status))
                        : "exited with status " + std::to_string(WEXITSTATUS(status));
  return processCaptureFailed("The capture process " + how + " without a result.").toJson();
}

// Renames a successful capture's output (synced first) into evidence/; false if it cannot.
bool moveIntoPlace(const std::string& partial, const std::string& evidence) {
  int fd = open(partial.c_str(), O_RDONLY | O_CLOEXEC);
  bool synced = fd >= 0 && fsync(fd) == 0;
  if (fd >= 0) close(fd);
  return synced && rename(partial.c_str(), evidence.c_str()) == 0;
}

// Moves a finished capture's output into place: Evidence to evidence/, or the error object to
// errors/ (removing the other kind, so each id has one latest result). Returns the result entry.
Json settle(const BatchPaths& paths, const BatchScenario& scenario, int status) {
  std::string partial = paths.partialFile(scenario.id);
  Json entry = {{"id", scenario.id}, {"scenario", scenario.file}};
  std::string log = paths.logFile(scenario.id);
  if (readWhole(log).empty()) unlink(log.c_str());
  bool succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (succeeded && moveIntoPlace(partial, paths.evidenceFile(scenario.id))) {
    unlink(paths.errorFile(scenario.id).c_str());
    entry["status"] = "captured";
    entry["evidence"] = "evidence/" + scenario.id + ".json";
    return entry;
  }
  Json error = succeeded ? executionFailure(
                               "The capture's Evidence could not be moved into the "
                               "results directory.")
                               .toJson()
                         : failureOf(partial, status);
  unlink(partial.c_str());
  unlink(paths.evidenceFile(scenario.id).c_str());
  writeJsonFile(paths.errorFile(scenario.id), error, true);
  entry["status"] = "failed";
  entry["error"] = error;
  return entry;
}

class ProgressLine {
  // "rea: batch 12/200 done (10 captured, 0 kept, 2 failed), 2 running" on stderr, redrawn in
  // place, only when stderr is a terminal; erased by finish().
 public:
  ProgressLine(size_t total) : total(total), enabled(isatty(STDERR_FILENO)) {}
  void draw(size_t done, const Json& counts, size_t running) {
    if (!enabled) return;
    std::fprintf(stderr,
                 "\r\033[Krea: batch %zu/%zu done (%d captured, %d kept, %d failed), %zu running",
                 done, total, counts["captured"].get<int>(), counts["kept"].get<int>(),
                 counts["failed"].get<int>(), running);
    std::fflush(stderr);
    drawn = true;
  }
  void finish() {
    if (drawn) std::fputs("\r\033[K", stderr);
    drawn = false;
  }

 private:
  size_t total;
  bool enabled;
  bool drawn = false;
};

std::string summarise(const Json& record) {
  const Json& counts = record["counts"];
  std::string text = "rea: batch of " + std::to_string(record["scenarios"].get<int>()) +
                     " scenarios: " + std::to_string(counts["captured"].get<int>()) +
                     " captured, " + std::to_string(counts["kept"].get<int>()) + " kept, " +
                     std::to_string(counts["failed"].get<int>()) + " failed\n";
  for (const auto& result : record["results"]) {
    if (result["status"] != "failed") continue;
    text += "  failed: " + result["id"].get<std::string>() + ": " +
            result["error"].value("message", "") + "\n";
  }
  return text;
}

// This worker's share: --shard when given, else the engine's environment (batch-shard.h).
// Returns the usage error's exit code, or nullopt with `shard` (and its record) set or not.
std::optional<int> chooseShard(bool given, const std::string& text, std::optional<Shard>& shard,
                               Json& record) {
  std::string source = "--shard";
  if (given) {
    auto parsed = parseShard(text);
    if (!parsed.shard) return usageError("--shard: " + parsed.problem, "capture-batch");
    shard = parsed.shard;
  } else {
    auto detected = detectShard([](const char* name) -> std::optional<std::string> {
      const char* value = std::getenv(name);
      if (value == nullptr) return std::nullopt;
      return std::string(value);
    });
    if (!detected.problem.empty()) return usageError(detected.problem, "capture-batch");
    shard = detected.shard;
    source = detected.source;
  }
  if (shard) record = {{"index", shard->index}, {"count", shard->count}, {"source", source}};
  return std::nullopt;
}

}  // namespace

int runCaptureBatchCommand(const std::vector<std::string>& args) {
  CommandLine line("capture-batch");
  ResultOptions result;
  std::string outDir, jobsText, shardText;
  bool force = false;
  line.app.add_flag("--pretty", result.pretty);
  line.app.add_option("--format", result.format)->check(CLI::IsMember({"json", "text"}));
  line.app.add_option("--out", outDir);
  auto* jobsOption = line.app.add_option("-j,--jobs", jobsText);
  auto* shardOption = line.app.add_option("--shard", shardText);
  line.app.add_flag("--force", force);
  if (auto usage = line.parse(args, 1, "expected one scenario directory or list file")) {
    return *usage;
  }
  if (outDir.empty()) return usageError("--out RESULTS is required", "capture-batch");
  int64_t jobs = static_cast<int64_t>(availableCores());
  if (jobsOption->count() > 0) {
    if (auto usage = line.count("--jobs", jobsText, jobs)) return *usage;
    if (jobs < 1 || jobs > MAX_JOBS) {
      return usageError("--jobs needs a number from 1 to 256", "capture-batch");
    }
  }
  std::optional<Shard> shard;
  Json shardJson = nullptr;
  if (auto usage = chooseShard(shardOption->count() > 0, shardText, shard, shardJson)) {
    return *usage;
  }

  // Like capture-process (issue 18.5): while the source is read (a list may be a FIFO) a
  // termination signal ends rea as usual; from here on it stops the batch cleanly instead.
  auto found = findBatchScenarios(line.files[0], outDir);
  blockBatchSignals();
  if (found.error) return printError(*found.error, result.pretty);
  std::vector<BatchScenario> scenarios = found.scenarios;
  if (shard) {
    std::vector<std::string> ids;
    for (const auto& scenario : scenarios)
      ids.push_back(scenario.id);
    auto mine = selectShard(ids, *shard);
    std::vector<BatchScenario> share;
    size_t k = 0;  // both lists are sorted by id
    for (const auto& scenario : scenarios) {
      if (k < mine.size() && mine[k] == scenario.id) {
        share.push_back(scenario);
        ++k;
      }
    }
    scenarios = std::move(share);
  }
  BatchPaths paths = batchPaths(outDir);
  if (auto error = makeBatchDirectories(paths)) return printError(*error, result.pretty);

  Json counts = {{"captured", 0}, {"kept", 0}, {"failed", 0}};
  std::vector<Json> entries(scenarios.size());
  std::vector<CaptureTask> tasks;
  std::vector<size_t> taskScenario;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const BatchScenario& scenario = scenarios[i];
    unlink(paths.partialFile(scenario.id).c_str());  // left by a killed batch
    if (!force && keepable(paths, scenario)) {
      unlink(paths.errorFile(scenario.id).c_str());
      entries[i] = {{"id", scenario.id},
                    {"scenario", scenario.file},
                    {"status", "kept"},
                    {"evidence", "evidence/" + scenario.id + ".json"}};
      counts["kept"] = counts["kept"].get<int>() + 1;
      continue;
    }
    tasks.push_back(
        CaptureTask{scenario.file, paths.partialFile(scenario.id), paths.logFile(scenario.id)});
    taskScenario.push_back(i);
  }

  ProgressLine progress(scenarios.size());
  size_t running = 0;
  size_t done = static_cast<size_t>(counts["kept"].get<int>());
  CaptureTaskEvents events;
  events.onStart = [&](size_t) {
    ++running;
    progress.draw(done, counts, running);
  };
  events.onEnd = [&](size_t task, int status, bool stopping) {
    --running;
    size_t i = taskScenario[task];
    if (stopping && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      // Cancelled by us: no result of its scenario; its partial file goes below. (One that
      // finished before our SIGTERM reached it has its Evidence: settled as usual.)
      progress.draw(done, counts, running);
      return;
    }
    entries[i] = settle(paths, scenarios[i], status);
    std::string kind = entries[i]["status"];
    counts[kind] = counts[kind].get<int>() + 1;
    ++done;
    progress.draw(done, counts, running);
  };
  bool completed = runCaptureTasks(tasks, static_cast<size_t>(jobs), events);
  progress.finish();
  if (!completed) {
    // Stopped by a signal: what ended was settled above; what was running was cancelled (its
    // partial file holds no Evidence and is removed here), the rest never started.
    for (size_t t = 0; t < tasks.size(); ++t)
      unlink(tasks[t].stdoutFile.c_str());
    return printError(cancelled(), result.pretty);
  }

  Json record = {{"scenarios", scenarios.size()},
                 {"jobs", jobs},
                 {"shard", shardJson},
                 {"counts", counts},
                 {"results", Json::array()}};
  for (auto& entry : entries)
    record["results"].push_back(std::move(entry));
  std::string name = shard ? "results-shard-" + std::to_string(shard->index) + "-of-" +
                                 std::to_string(shard->count) + ".json"
                           : "results.json";
  if (int failed = writeJsonFile(outDir + "/" + name, record, true)) return failed;
  return deliverResult(record, summarise(record), result);
}

}  // namespace rea::supervisor
