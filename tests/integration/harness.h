#pragma once
// Integration-test harness: runs the real `rea` binary (build/bin/rea) on a scenario with a
// given operator policy, in a private TMPDIR so that leftovers (temporary roots, processes whose
// HOME lies inside that TMPDIR) can be detected exactly, even when other tests run in parallel.

#include <signal.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rea::test {

using Json = nlohmann::ordered_json;

struct RunResult {
  int exitCode = -1;
  std::string stdoutText;
  std::string stderrText;
  std::optional<Json> output;  // stdout parsed as JSON, when it is
};

struct Policy {
  std::string executableRoots = R"(["/bin","/usr/bin"])";
  std::string workingRoots = R"(["/tmp"])";
  std::string allowedEnvironment = R"(["PATH","LANG","SECRET_TOKEN"])";
  bool allowExternalNetwork = true;
  bool enabled = true;
  std::string maxPids;  // REA_PROCESS_MAX_PIDS; "" = unset (rea's default bound)
};

class Sandbox {
  // A private TMPDIR for one rea run; the destructor removes it.
 public:
  Sandbox();
  ~Sandbox();
  const std::string& tmpdir() const { return dir; }

  RunResult capture(const Json& scenario, const Policy& policy = {},
                    const std::vector<std::string>& extraArgs = {},
                    std::optional<int> signalAfterMs = std::nullopt, int signal = SIGTERM);
  // Writes the scenario to a file and runs `rea capture-process FILE`. With `signalAfterMs`,
  // sends `signal` to rea after that many milliseconds.

  RunResult run(const std::vector<std::string>& args, const Policy& policy = {});

  RunResult runProgram(const std::string& program, const std::vector<std::string>& args);
  // Runs another program (asciinema, curl, ...) with this sandbox's TMPDIR and the policy's
  // environment, exactly like rea is run.

  std::vector<std::string> leftoverTempRoots() const;
  // rea-process-* directories still under this TMPDIR.
  std::vector<int> leftoverProcesses() const;
  // Processes whose environment's HOME lies inside this TMPDIR (the targets of our captures).

  std::string writeFile(const std::string& name, const std::string& content);

  Json withOwnRoots(Json scenario);
  // The scenario with each of its filesystem_roots (and a working_directory that is one of them)
  // replaced by a new, empty directory of this sandbox (mkdtemp): a bundled example that observes
  // /tmp/rea-files-example then leaves nothing in /tmp and shares no directory with other tests.

  void stderrTo(int fd) { stderrFd = fd; }
  // The following runs write their stderr to `fd` (e.g. a pty slave) instead of having it
  // collected in RunResult::stderrText; -1 restores collecting.
  void stdoutTo(int fd) { stdoutFd = fd; }
  // The same for stdout (RunResult::stdoutText).

 private:
  std::string dir;
  int stderrFd = -1;
  int stdoutFd = -1;

  RunResult execute(const std::string& program, const std::vector<std::string>& args,
                    const Policy& policy, std::optional<int> signalAfterMs, int signal);
};

std::string reaBinary();
std::vector<int> processesWithEnvironment(const std::string& prefix);
// Live (non-zombie) processes with an environment entry that starts with `prefix`.
std::vector<std::string> cgroupCandidates(const std::string& runToken);
// Where the sampler may have created the capture cgroup of that run token: the cgroup2 mount, or
// this process's own group under it.
std::string concatenatedFrames(const Json& evidence);

Json shScenario(const std::string& script);
// An approved scenario: `/bin/sh -c script` in /tmp, PATH only, a 20 s timeout.
Json inputWhenOutput(const std::string& literal, const std::string& data);
// A reactive input event (issue 19): `data` is written once `literal` has been output, so it
// never races the prompt it answers, however loaded the machine.

RunResult compareCaptures(Sandbox& sandbox, const Json& left, const Json& right,
                          const std::vector<std::string>& options = {});
// Writes both captures into the sandbox and runs `rea compare-process-captures [options] L R`.

void expectValidAndClean(const Sandbox& sandbox, const RunResult& result);
// The run succeeded with Evidence that imports, and left no temp root and no process behind.
const Json& capture(const Json& evidence);  // normalized_result

}  // namespace rea::test
