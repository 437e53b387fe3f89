#include "tests/integration/harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "evidence/evidence-record.h"
#include "helpers/common/clock.h"
#include "helpers/common/system/cgroup-mounts.h"

namespace rea::test {
namespace {

int64_t nowMs() {
  return static_cast<int64_t>(helper::monotonicNowNs() / 1000000);
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

std::string reaBinary() {
  return std::string(REA_BINARY_DIR) + "/bin/rea";
}

std::vector<std::string> cgroupCandidates(const std::string& runToken) {
  return helper::captureCgroupCandidates(runToken);
}

Sandbox::Sandbox() {
  char pattern[] = "/tmp/rea-it-XXXXXX";
  if (mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir = pattern;
}

Sandbox::~Sandbox() {
  std::string command = "rm -rf '" + dir + "'";
  if (system(command.c_str()) != 0) {
    // Best effort; a failing test already reported what was left behind.
  }
}

std::string Sandbox::writeFile(const std::string& name, const std::string& content) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

Json Sandbox::withOwnRoots(Json scenario) {
  if (!scenario.contains("filesystem_roots")) return scenario;
  Json roots = Json::array();
  for (const auto& root : scenario["filesystem_roots"]) {
    std::string own = dir + "/root-XXXXXX";
    if (mkdtemp(own.data()) == nullptr) {
      throw std::runtime_error("cannot make " + own + ": " + strerror(errno));
    }
    if (scenario.value("working_directory", "") == root.get<std::string>()) {
      scenario["working_directory"] = own;
    }
    roots.push_back(own);
  }
  scenario["filesystem_roots"] = roots;
  return scenario;
}

RunResult Sandbox::run(const std::vector<std::string>& args, const Policy& policy) {
  return capture(Json(), policy, args);
}

RunResult Sandbox::capture(const Json& scenario, const Policy& policy,
                           const std::vector<std::string>& extraArgs,
                           std::optional<int> signalAfterMs, int signal) {
  std::vector<std::string> args;
  if (scenario.is_null()) {
    args = extraArgs;
  } else {
    args = {"capture-process"};
    args.insert(args.end(), extraArgs.begin(), extraArgs.end());
    args.push_back(writeFile("scenario.json", scenario.dump()));
  }
  return execute(reaBinary(), args, policy, signalAfterMs, signal);
}

RunResult Sandbox::runProgram(const std::string& program, const std::vector<std::string>& args) {
  return execute(program, args, Policy{}, std::nullopt, SIGTERM);
}

RunResult Sandbox::execute(const std::string& program, const std::vector<std::string>& args,
                           const Policy& policy, std::optional<int> signalAfterMs, int signal) {
  std::string outPath = dir + "/.stdout", errPath = dir + "/.stderr";
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(stdoutFd >= 0 ? stdoutFd : out, 1);
    dup2(stderrFd >= 0 ? stderrFd : err, 2);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    setenv("TMPDIR", dir.c_str(), 1);
    setenv("REA_PROCESS_CAPTURE_ENABLED", policy.enabled ? "true" : "false", 1);
    setenv("REA_PROCESS_EXECUTABLE_ROOTS_JSON", policy.executableRoots.c_str(), 1);
    setenv("REA_PROCESS_WORKING_ROOTS_JSON", policy.workingRoots.c_str(), 1);
    setenv("REA_PROCESS_ALLOWED_ENV_JSON", policy.allowedEnvironment.c_str(), 1);
    setenv("REA_PROCESS_ALLOW_EXTERNAL_NETWORK", policy.allowExternalNetwork ? "true" : "false", 1);
    if (policy.maxPids.empty()) {
      unsetenv("REA_PROCESS_MAX_PIDS");
    } else {
      setenv("REA_PROCESS_MAX_PIDS", policy.maxPids.c_str(), 1);
    }
    std::vector<char*> argv;
    std::string binary = program;
    argv.push_back(binary.data());
    std::vector<std::string> owned = args;
    for (auto& arg : owned)
      argv.push_back(arg.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  if (signalAfterMs) {
    int64_t deadline = nowMs() + *signalAfterMs;
    bool sent = false;
    for (;;) {
      pid_t done = waitpid(pid, &status, WNOHANG);
      if (done == pid) break;
      if (!sent && nowMs() >= deadline) {
        kill(pid, signal);
        sent = true;
      }
      usleep(5000);
    }
  } else {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  RunResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.stdoutText = readAll(outPath);
  result.stderrText = readAll(errPath);
  unlink(outPath.c_str());
  unlink(errPath.c_str());
  auto parsed = Json::parse(result.stdoutText, nullptr, false);
  if (!parsed.is_discarded()) result.output = std::move(parsed);
  return result;
}

std::vector<std::string> Sandbox::leftoverTempRoots() const {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (struct dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    if (name.rfind("rea-process-", 0) == 0) out.push_back(dir + "/" + name);
  }
  closedir(d);
  return out;
}

std::vector<int> Sandbox::leftoverProcesses() const {
  return processesWithEnvironment("HOME=" + dir + "/");
}

std::vector<int> processesWithEnvironment(const std::string& prefix) {
  std::vector<int> out;
  DIR* d = opendir("/proc");
  if (d == nullptr) return out;
  while (struct dirent* entry = readdir(d)) {
    char* end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::string environ = readAll("/proc/" + std::to_string(pid) + "/environ");
    std::string stat = readAll("/proc/" + std::to_string(pid) + "/stat");
    size_t close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z') continue;
    for (size_t start = 0; start < environ.size();) {
      size_t stop = environ.find('\0', start);
      if (stop == std::string::npos) stop = environ.size();
      if (environ.compare(start, prefix.size(), prefix) == 0) {
        out.push_back(static_cast<int>(pid));
        break;
      }
      start = stop + 1;
    }
  }
  closedir(d);
  return out;
}

const Json& capture(const Json& evidence) {
  return evidence.at("normalized_result");
}

std::string concatenatedFrames(const Json& evidence) {
  std::string out;
  for (const auto& frame : capture(evidence).at("frames"))
    out += frame.at("data").get<std::string>();
  return out;
}

Json shScenario(const std::string& script) {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments", {"-c", script}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"timeout_ms", 20000}};
}

Json inputWhenOutput(const std::string& literal, const std::string& data) {
  return Json{{"type", "input"},
              {"when", {{"type", "output_literal"}, {"value", literal}}},
              {"data", data}};
}

RunResult compareCaptures(Sandbox& sandbox, const Json& left, const Json& right,
                          const std::vector<std::string>& options) {
  std::vector<std::string> args = {"compare-process-captures"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back(sandbox.writeFile("left.json", left.dump()));
  args.push_back(sandbox.writeFile("right.json", right.dump()));
  return sandbox.run(args);
}

void expectValidAndClean(const Sandbox& sandbox, const RunResult& result) {
  ASSERT_EQ(result.exitCode, 0) << result.stdoutText.substr(0, 2000) << result.stderrText;
  ASSERT_TRUE(result.output.has_value());
  auto imported = evidence::importCaptureEvidence(*result.output);
  EXPECT_TRUE(imported.ok()) << imported.detail;
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty());
  EXPECT_TRUE(sandbox.leftoverProcesses().empty());
}

}  // namespace rea::test
