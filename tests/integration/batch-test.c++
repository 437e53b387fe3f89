// `rea capture-batch` and `rea compare-batch` through the real binary (issue 21): a corpus
// captured with --jobs 2 equals --jobs 1; a batch killed with SIGKILL at random moments and run
// again equals an uninterrupted run, with no half-written Evidence and nothing leaked; a copy
// with three altered scenarios is named, exactly those three, with their first divergences, in
// summary.json and index.html; failures are results; shards fill one results directory.
//
// Tiny scenarios (echo, a short sleep): ≤ ~20 captures per test, no timing assertions (the
// comparisons use a huge timing tolerance, so a loaded machine changes nothing).
#include <dirent.h>
#include <fcntl.h>
#include <pty.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "evidence/evidence-record.h"
#include "helpers/common/system/cgroup-mounts.h"
#include "tests/integration/harness.h"

namespace rea::test {
namespace {

const std::string NO_TIMING = "--timing-tolerance-ms=600000";

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Json readJson(const std::string& path) {
  return Json::parse(readText(path));
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> namesIn(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A corpus of `count` scenarios under sandbox/NAME: `group/echo-K.json` (two groups, so ids
// carry the ~ of a subdirectory). `script(k)` is what scenario k runs.
std::string writeCorpus(Sandbox& sandbox, const std::string& name, int count,
                        const std::function<std::string(int)>& script) {
  std::string root = sandbox.tmpdir() + "/" + name;
  mkdir(root.c_str(), 0755);
  for (const char* group : {"a", "b"})
    mkdir((root + "/" + group).c_str(), 0755);
  for (int k = 0; k < count; ++k) {
    std::string file =
        root + "/" + (k % 2 == 0 ? "a" : "b") + "/echo-" + std::to_string(k) + ".json";
    std::ofstream(file) << shScenario(script(k)).dump();
  }
  return root;
}

std::string idOf(int k) {
  return std::string(k % 2 == 0 ? "a" : "b") + "~echo-" + std::to_string(k);
}

RunResult captureBatch(Sandbox& sandbox, const std::string& corpus, const std::string& out,
                       std::vector<std::string> options = {}) {
  std::vector<std::string> args = {"capture-batch", "--format=json", corpus, "--out", out};
  args.insert(args.end(), options.begin(), options.end());
  return sandbox.run(args);
}

RunResult compareBatch(Sandbox& sandbox, const std::string& left, const std::string& right,
                       const std::string& out) {
  return sandbox.run({"compare-batch", "--format=json", NO_TIMING, left, right, "--out", out});
}

// The document as a headless browser built it from the page (its DOM, serialised).
RunResult browserDom(Sandbox& sandbox, const std::string& profile, const std::string& page) {
  return sandbox.runProgram(
      "/usr/bin/timeout",
      {"300", "/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
       "--user-data-dir=" + sandbox.tmpdir() + "/" + profile, "--dump-dom", "file://" + page});
}

// The <tr> of a pair in an index page (as written, or as a browser serialised it).
std::string pairRow(const std::string& page, const std::string& id) {
  size_t at = page.find("<tr id=\"pair-" + id + "\"");
  if (at == std::string::npos) return "";
  return page.substr(at, page.find("</tr>", at) - at);
}

// Every Evidence file in RESULTS/evidence imports with the checks of compare.
void expectOnlyCompleteEvidence(const std::string& results) {
  for (const auto& name : namesIn(results + "/evidence")) {
    if (name[0] == '.') continue;  // a partial file of a killed batch: never an id
    auto imported = evidence::importCaptureEvidence(readJson(results + "/evidence/" + name));
    EXPECT_EQ(imported.failure, evidence::EvidenceFailure::NONE) << name << imported.detail;
  }
}

// Waits until no process of this sandbox is left (captures cancelled by the death of their
// batch clean up first); true when none is. Bounded generously: only a leak makes it fail.
bool noProcessesLeft(const Sandbox& sandbox) {
  for (int i = 0; i < 600; ++i) {
    if (processesWithEnvironment("TMPDIR=" + sandbox.tmpdir()).empty() &&
        sandbox.leftoverProcesses().empty()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// The run tokens the targets of a corpus wrote (one line each, see the killed-batch test).
std::vector<std::string> tokensIn(const std::string& path) {
  std::vector<std::string> tokens;
  std::istringstream lines(readText(path));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) tokens.push_back(line);
  return tokens;
}

// Waits until no capture whose target wrote one of `tokens` has a process or a capture cgroup
// left (the cgroup v2 group, and the cgroup v1 pids group where the pids bound is made there; a
// capture cancelled by the death of its batch cleans up on its own); the paths left otherwise.
// Bounded generously: only a leak makes it fail.
std::vector<std::string> leftByRuns(const std::vector<std::string>& tokens) {
  std::vector<std::string> left;
  for (int i = 0; i < 600; ++i) {
    left.clear();
    for (const auto& token : tokens) {
      for (int pid : processesWithEnvironment("REA_PROCESS_RUN_ID=" + token))
        left.push_back("/proc/" + std::to_string(pid));
      std::vector<std::string> groups = cgroupCandidates(token);
      KJ_IF_MAYBE (mount, helper::findCgroup1Mount("pids")) {
        groups.push_back(helper::pidsGroupParent(*mount) + "/rea-" + token);
      }
      for (const auto& path : groups)
        if (access(path.c_str(), F_OK) == 0) left.push_back(path);
    }
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return left;
}

// Pairs compared, nothing changed or truncated, nothing failed or on one side only.
void expectSameResults(const RunResult& compared, size_t pairs) {
  ASSERT_EQ(compared.exitCode, 0) << compared.stdoutText << compared.stderrText;
  const Json& summary = *compared.output;
  EXPECT_EQ(summary["counts"]["pairs"], pairs) << summary.dump();
  EXPECT_EQ(summary["complete"], true) << summary.dump();
  EXPECT_EQ(summary["counts"]["changed"], 0) << summary.dump();
  EXPECT_EQ(summary["counts"]["truncated"], 0) << summary.dump();
  EXPECT_NE(summary["status"], "changed");
}

TEST(Batch, TwoJobsEqualOneAndThreeAlteredScenariosAreNamedWithTheirFirstDivergences) {
  Sandbox sandbox;
  auto script = [](int k) { return "echo scenario " + std::to_string(k); };
  std::string corpus = writeCorpus(sandbox, "corpus", 8, script);
  std::string one = sandbox.tmpdir() + "/one", two = sandbox.tmpdir() + "/two";
  auto first = captureBatch(sandbox, corpus, one, {"--jobs", "1"});
  ASSERT_EQ(first.exitCode, 0) << first.stdoutText << first.stderrText;
  EXPECT_EQ((*first.output)["counts"]["captured"], 8) << first.stdoutText;
  auto second = captureBatch(sandbox, corpus, two, {"--jobs=2"});
  ASSERT_EQ(second.exitCode, 0) << second.stdoutText << second.stderrText;
  EXPECT_EQ(namesIn(one + "/evidence"), namesIn(two + "/evidence"));
  EXPECT_EQ(namesIn(two + "/evidence").size(), 8u);
  EXPECT_TRUE(namesIn(two + "/errors").empty());
  expectSameResults(compareBatch(sandbox, one, two, sandbox.tmpdir() + "/same"), 8);
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());

  // The altered copy: three scenarios print something else. Captured into a copy of `two`, so
  // the rerun keeps the five unchanged scenarios' Evidence and captures the three again.
  std::set<int> altered = {1, 4, 6};
  std::string changedCorpus = writeCorpus(sandbox, "altered", 8, [&](int k) {
    return altered.count(k) ? "echo altered " + std::to_string(k)
                            : "echo scenario " + std::to_string(k);
  });
  std::string three = sandbox.tmpdir() + "/three";
  ASSERT_EQ(std::system(("cp -r '" + two + "' '" + three + "'").c_str()), 0);
  auto rerun = captureBatch(sandbox, changedCorpus, three);
  ASSERT_EQ(rerun.exitCode, 0) << rerun.stdoutText << rerun.stderrText;
  EXPECT_EQ((*rerun.output)["counts"]["captured"], 3) << rerun.stdoutText;
  EXPECT_EQ((*rerun.output)["counts"]["kept"], 5) << rerun.stdoutText;

  std::string report = sandbox.tmpdir() + "/report";
  auto compared = compareBatch(sandbox, one, three, report);
  ASSERT_EQ(compared.exitCode, 0) << compared.stdoutText << compared.stderrText;
  Json summary = readJson(report + "/summary.json");
  EXPECT_EQ(summary, *compared.output);
  EXPECT_EQ(summary["status"], "changed");
  EXPECT_EQ(summary["counts"]["changed"], 3) << summary.dump();
  EXPECT_EQ(summary["dimensions"]["terminal"]["changed"], 3) << summary.dump();
  EXPECT_EQ(summary["dimensions"]["terminal"]["unchanged"], 5) << summary.dump();
  std::string page = readText(report + "/index.html");
  std::set<std::string> named;
  std::map<std::string, std::string> where;  // id -> "dimension[index]" of a changed pair
  for (const Json& pair : summary["pairs"]) {
    std::string id = pair["id"];
    std::string row = pairRow(page, id);
    EXPECT_TRUE(contains(row, "href=\"pairs/" + id + ".html\"")) << id << ": " << row;
    EXPECT_EQ(access((report + "/pairs/" + id + ".html").c_str(), R_OK), 0) << id;
    EXPECT_EQ(access((report + "/pairs/" + id + ".json").c_str(), R_OK), 0) << id;
    if (pair["status"] != "changed") {
      EXPECT_FALSE(contains(row, ">changed<")) << row;
      continue;
    }
    named.insert(id);
    const Json& divergence = pair["first_divergence"];
    EXPECT_EQ(divergence["status"], "found") << divergence.dump();
    // The scenario printed something else with another command line: the terminal and the
    // process dimensions differ, and whichever was observed first is the first divergence
    // (B §9.4: ties in time keep the dimension order).
    std::string dimension = divergence["dimension"];
    EXPECT_TRUE(dimension == "terminal" || dimension == "process") << divergence.dump();
    EXPECT_EQ(pair["dimensions"], Json::array({"terminal", "process"})) << pair.dump();
    // The page names the pair as changed, where it diverged, and what each side showed.
    EXPECT_TRUE(contains(row, ">changed<")) << row;
    where[id] = dimension + "[" + std::to_string(divergence["index"].get<int>()) + "]";
    EXPECT_TRUE(contains(row, ">" + where[id] + "<")) << row;
    std::string k = id.substr(id.rfind('-') + 1);
    EXPECT_TRUE(contains(row, "altered " + k)) << row;
  }
  EXPECT_EQ(named, (std::set<std::string>{idOf(1), idOf(4), idOf(6)}));

  // The same as a browser shows it: exactly the three rows say changed, each links its page.
  if (access("/usr/bin/chromium", X_OK) == 0) {
    auto dom = browserDom(sandbox, "profile-index", report + "/index.html");
    ASSERT_EQ(dom.exitCode, 0) << dom.stderrText;
    std::set<std::string> shownChanged;
    for (const Json& pair : summary["pairs"]) {
      std::string id = pair["id"];
      std::string row = pairRow(dom.stdoutText, id);
      ASSERT_FALSE(row.empty()) << id << " has no row in the browser's document";
      EXPECT_TRUE(contains(row, "<a href=\"pairs/" + id + ".html\">")) << row;
      if (contains(row, ">changed<")) {
        shownChanged.insert(id);
        EXPECT_TRUE(contains(row, ">" + where[id] + "<")) << row;
      }
    }
    EXPECT_EQ(shownChanged, named);
    auto linked = browserDom(sandbox, "profile-pair", report + "/pairs/" + idOf(4) + ".html");
    ASSERT_EQ(linked.exitCode, 0) << linked.stderrText;
    EXPECT_TRUE(contains(linked.stdoutText, "altered 4")) << linked.stdoutText;
  }
  EXPECT_EQ(sandbox.run({"compare-batch", NO_TIMING, "--exit-code", one, three, "--out", report})
                .exitCode,
            1);
}

TEST(Batch, KilledAtRandomMomentsThenRerunEqualsAnUninterruptedRunAndLeaksNothing) {
  Sandbox sandbox;
  // Eight scenarios of at least 0.5 s each, two at a time: a round killed within 700 ms finishes
  // at most two, so each of the three rounds (and the SIGTERM after them) interrupts the batch
  // however fast the machine; the sleeps cost no CPU. Each target appends its capture's run
  // token to a file, so that the processes and the capture cgroup of every capture that got as
  // far as starting its target can be looked for afterwards (the same command line every run:
  // the results still compare equal).
  std::string tokens = sandbox.tmpdir() + "/run-tokens";
  auto script = [&](int k) {
    return "echo \"$REA_PROCESS_RUN_ID\" >> " + tokens + "; echo start " + std::to_string(k) +
           "; sleep 0.5; echo end";
  };
  std::string corpus = writeCorpus(sandbox, "corpus", 8, script);
  std::string baseline = sandbox.tmpdir() + "/baseline", killed = sandbox.tmpdir() + "/killed";
  auto uninterrupted = captureBatch(sandbox, corpus, baseline, {"--jobs", "2"});
  ASSERT_EQ(uninterrupted.exitCode, 0) << uninterrupted.stdoutText << uninterrupted.stderrText;

  std::random_device device;
  unsigned seed = device();
  std::mt19937 random(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int round = 0; round < 3; ++round) {
    int afterMs = std::uniform_int_distribution<int>(0, 700)(random);
    SCOPED_TRACE("round " + std::to_string(round) + ": SIGKILL after " + std::to_string(afterMs) +
                 " ms");
    auto run =
        sandbox.capture(Json(), Policy{}, {"capture-batch", corpus, "--out", killed, "--jobs", "2"},
                        afterMs, SIGKILL);
    ASSERT_TRUE(noProcessesLeft(sandbox)) << "captures outlived their batch";
    EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
    expectOnlyCompleteEvidence(killed);
    EXPECT_NE(run.exitCode, 0) << "the batch finished before its SIGKILL";
  }
  // A termination signal instead: the running captures are cancelled and clean up; exit 1 with
  // the `cancelled` error; their partial files are removed.
  auto stopped = sandbox.capture(
      Json(), Policy{}, {"capture-batch", "--format=json", corpus, "--out", killed, "--jobs", "2"},
      std::uniform_int_distribution<int>(0, 300)(random), SIGTERM);
  // 128 + SIGTERM: the signal came while the batch was still listing its scenarios (as for
  // capture-process, nothing has started then).
  EXPECT_TRUE(stopped.exitCode == 0 || stopped.exitCode == 1 || stopped.exitCode == 128 + SIGTERM)
      << stopped.exitCode << stopped.stderrText;
  if (stopped.exitCode == 1) {
    ASSERT_TRUE(stopped.output.has_value()) << stopped.stdoutText;
    EXPECT_EQ((*stopped.output)["code"], "cancelled");
    for (const auto& name : namesIn(killed + "/evidence"))
      EXPECT_NE(name[0], '.') << name;
  }
  EXPECT_TRUE(noProcessesLeft(sandbox));

  auto rerun = captureBatch(sandbox, corpus, killed, {"--jobs", "2"});
  ASSERT_EQ(rerun.exitCode, 0) << rerun.stdoutText << rerun.stderrText;
  EXPECT_EQ((*rerun.output)["counts"]["failed"], 0) << rerun.stdoutText;
  EXPECT_EQ(namesIn(killed + "/evidence"), namesIn(baseline + "/evidence"));
  EXPECT_TRUE(namesIn(killed + "/errors").empty());
  for (const auto& name : namesIn(killed + "/evidence"))
    EXPECT_NE(name[0], '.') << name;
  expectOnlyCompleteEvidence(killed);
  expectSameResults(compareBatch(sandbox, baseline, killed, sandbox.tmpdir() + "/report"), 8);
  EXPECT_TRUE(noProcessesLeft(sandbox));
  // Every capture that started its target, the killed ones too: nothing of it is left.
  std::vector<std::string> runs = tokensIn(tokens);
  EXPECT_GE(runs.size(), 16u) << "fewer targets wrote their token than captures completed";
  auto left = leftByRuns(runs);
  EXPECT_TRUE(left.empty()) << left.size() << " left, e.g. " << left[0];
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
}

TEST(Batch, FailuresAreResultsAndAListFileNamesScenariosRelativeToItself) {
  Sandbox sandbox;
  sandbox.writeFile("ok.json", shScenario("echo ok").dump());
  sandbox.writeFile("broken.json", "{ not json");
  std::string list = sandbox.writeFile("corpus.list", "# two scenarios\nok.json\n\nbroken.json\n");
  std::string out = sandbox.tmpdir() + "/results";
  auto run = captureBatch(sandbox, list, out);
  ASSERT_EQ(run.exitCode, 0) << run.stdoutText << run.stderrText;
  const Json& record = *run.output;
  EXPECT_EQ(record["counts"], (Json{{"captured", 1}, {"kept", 0}, {"failed", 1}}));
  EXPECT_EQ(record["results"][0]["id"], "broken");
  EXPECT_EQ(record["results"][0]["status"], "failed");
  EXPECT_EQ(record["results"][0]["error"]["category"], "invalid_input");
  EXPECT_EQ(readJson(out + "/errors/broken.json"), record["results"][0]["error"]);
  EXPECT_EQ(record["results"][1]["status"], "captured");
  EXPECT_EQ(readJson(out + "/results.json"), record);

  // Kept on a rerun; the failed one is tried again; --force captures again.
  auto again = captureBatch(sandbox, list, out);
  EXPECT_EQ((*again.output)["counts"], (Json{{"captured", 0}, {"kept", 1}, {"failed", 1}}));
  auto forced = captureBatch(sandbox, list, out, {"--force"});
  EXPECT_EQ((*forced.output)["counts"], (Json{{"captured", 1}, {"kept", 0}, {"failed", 1}}));
  // A damaged Evidence file is not kept.
  std::string damaged = readText(out + "/evidence/ok.json");
  std::ofstream(out + "/evidence/ok.json") << damaged.substr(0, damaged.size() / 2);
  auto repaired = captureBatch(sandbox, list, out);
  EXPECT_EQ((*repaired.output)["counts"]["captured"], 1) << repaired.stdoutText;

  // compare-batch: the failed scenario is a failed pair; one on one side only.
  std::string other = sandbox.tmpdir() + "/other";
  std::string single = sandbox.writeFile("single.list", "ok.json\n");
  ASSERT_EQ(captureBatch(sandbox, single, other).exitCode, 0);
  auto compared = compareBatch(sandbox, out, other, sandbox.tmpdir() + "/report");
  ASSERT_EQ(compared.exitCode, 0) << compared.stdoutText << compared.stderrText;
  EXPECT_EQ((*compared.output)["left_only"], Json::array({"broken"}));
  EXPECT_EQ((*compared.output)["complete"], false);
  EXPECT_EQ(sandbox
                .run({"compare-batch", "--exit-code", NO_TIMING, out, other, "--out",
                      sandbox.tmpdir() + "/report"})
                .exitCode,
            1);

  // Usage errors exit 2; a source that does not exist is an error object.
  EXPECT_EQ(sandbox.run({"capture-batch", list}).exitCode, 2);
  EXPECT_EQ(sandbox.run({"capture-batch", list, "--out", out, "--shard", "2/2"}).exitCode, 2);
  EXPECT_EQ(sandbox.run({"capture-batch", list, "--out", out, "--jobs", "0"}).exitCode, 2);
  auto missing = sandbox.run({"capture-batch", sandbox.tmpdir() + "/nope", "--out", out});
  EXPECT_EQ(missing.exitCode, 1);
  ASSERT_TRUE(missing.output.has_value()) << missing.stdoutText;
  EXPECT_EQ((*missing.output)["category"], "invalid_input");
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
}

TEST(Batch, ShardsFromTheOptionAndTheEnvironmentFillOneResultsDirectory) {
  Sandbox sandbox;
  std::string corpus =
      writeCorpus(sandbox, "corpus", 5, [](int k) { return "echo shard " + std::to_string(k); });
  std::string out = sandbox.tmpdir() + "/results";
  auto zero = captureBatch(sandbox, corpus, out, {"--shard", "0/2"});
  ASSERT_EQ(zero.exitCode, 0) << zero.stdoutText << zero.stderrText;
  // A Kubernetes Indexed Job's pod: the index from the Job, the count from the manifest.
  setenv("JOB_COMPLETION_INDEX", "1", 1);
  setenv("REA_SHARD_COUNT", "2", 1);
  auto one = captureBatch(sandbox, corpus, out);
  unsetenv("JOB_COMPLETION_INDEX");
  unsetenv("REA_SHARD_COUNT");
  ASSERT_EQ(one.exitCode, 0) << one.stdoutText << one.stderrText;
  EXPECT_EQ((*one.output)["shard"],
            (Json{{"index", 1}, {"count", 2}, {"source", "JOB_COMPLETION_INDEX"}}));
  // Sorted ids a~echo-0, a~echo-2, a~echo-4, b~echo-1, b~echo-3: every other one per shard.
  auto ids = [](const RunResult& run) {
    std::vector<std::string> out;
    for (const Json& result : (*run.output)["results"])
      out.push_back(result["id"]);
    return out;
  };
  EXPECT_EQ(ids(zero), (std::vector<std::string>{idOf(0), idOf(4), idOf(3)}));
  EXPECT_EQ(ids(one), (std::vector<std::string>{idOf(2), idOf(1)}));
  EXPECT_EQ(namesIn(out),
            (std::vector<std::string>{"errors", "evidence", "logs", "results-shard-0-of-2.json",
                                      "results-shard-1-of-2.json"}));
  EXPECT_EQ(namesIn(out + "/evidence").size(), 5u);
  // A malformed engine variable is a usage error, not a batch of everything.
  setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  auto refused = captureBatch(sandbox, corpus, out);
  unsetenv("SLURM_ARRAY_TASK_ID");
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_TRUE(contains(refused.stderrText, "SLURM_ARRAY_TASK_MIN")) << refused.stderrText;
  // The merged directory compares as one batch.
  expectSameResults(compareBatch(sandbox, out, out, sandbox.tmpdir() + "/report"), 5);
}

TEST(Batch, ProgressLineOnlyOnATerminal) {
  Sandbox sandbox;
  std::string corpus =
      writeCorpus(sandbox, "corpus", 2, [](int k) { return "echo progress " + std::to_string(k); });
  // stderr a file: nothing on it.
  auto quiet = captureBatch(sandbox, corpus, sandbox.tmpdir() + "/quiet");
  ASSERT_EQ(quiet.exitCode, 0) << quiet.stdoutText << quiet.stderrText;
  EXPECT_EQ(quiet.stderrText, "");
  // stderr a terminal: the line, redrawn in place, ending with every scenario done, then erased.
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  fcntl(master, F_SETFD, FD_CLOEXEC);
  fcntl(slave, F_SETFD, FD_CLOEXEC);  // dup2 onto fd 2 in the child clears it there
  std::string drawn;
  std::thread reader([&]() {
    char buffer[4096];
    for (;;) {
      ssize_t n = read(master, buffer, sizeof(buffer));
      if (n > 0) {
        drawn.append(buffer, static_cast<size_t>(n));
      } else if (!(n < 0 && errno == EINTR)) {
        return;  // EIO: rea has exited and the slave is closed
      }
    }
  });
  sandbox.stderrTo(slave);
  auto shown = captureBatch(sandbox, corpus, sandbox.tmpdir() + "/shown", {"--jobs", "1"});
  sandbox.stderrTo(-1);
  close(slave);
  reader.join();
  close(master);
  ASSERT_EQ(shown.exitCode, 0) << shown.stdoutText;
  EXPECT_TRUE(
      contains(drawn, "\r\x1b[Krea: batch 0/2 done (0 captured, 0 kept, 0 failed), 1 running"))
      << drawn;
  EXPECT_TRUE(
      contains(drawn, "\r\x1b[Krea: batch 2/2 done (2 captured, 0 kept, 0 failed), 0 running"))
      << drawn;
  EXPECT_EQ(drawn.substr(drawn.size() - 4), "\r\x1b[K") << drawn;
}

}  // namespace
}  // namespace rea::test
