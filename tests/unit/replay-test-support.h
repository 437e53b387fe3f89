#pragma once
// Shared by the replay tests: a replay server on a real event loop, real clients (curl,
// rea-ws-client) run as child processes while the loop serves them, and raw loopback sockets
// for the hostile-client tests. Everything talks to 127.0.0.1 only.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <kj/async-io.h>
#include <kj/debug.h>
#include <kj/time.h>
#include <nlohmann/json.hpp>

#include "helpers/replay/replay-plan.h"
#include "helpers/replay/replay-server.h"
#include "helpers/replay/standalone.h"

namespace rea::helper::test {

struct ProcessResult {
  int exitCode = -1;  // exit status, or 128 + signal
  std::string out;    // stdout
};

inline kj::Promise<ProcessResult> runProcess(kj::AsyncIoContext& io,
                                             std::vector<std::string> argv) {
  // Runs argv (PATH search) with stdout captured and stderr discarded, while the caller's
  // event loop keeps serving; resolves once the child has closed stdout and exited.
  int pipeFds[2];
  KJ_SYSCALL(pipe2(pipeFds, O_CLOEXEC));
  pid_t pid = fork();
  KJ_ASSERT(pid >= 0, "fork failed");
  if (pid == 0) {
    dup2(pipeFds[1], STDOUT_FILENO);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    std::vector<char*> args;
    for (auto& a : argv)
      args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipeFds[1]);
  auto input = io.lowLevelProvider->wrapInputFd(
      pipeFds[0],
      kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP | kj::LowLevelAsyncIoProvider::ALREADY_CLOEXEC);
  auto read = input->readAllText();
  return read.attach(kj::mv(input)).then([pid](kj::String text) {
    int status = 0;
    waitpid(pid, &status, 0);
    ProcessResult result;
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = text.cStr();
    return result;
  });
}

inline std::string wsClientPath() {
  return std::string(REA_BINARY_DIR) + "/bin/rea-ws-client";
}

inline ReplayPlan planFrom(const char* json) {
  return replayPlanFromJson(evidence::Json::parse(json));
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    result.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

// A replay server on its own event loop, for one test.
struct ReplayFixture {
  explicit ReplayFixture(const char* planJson, ReplayLimits limits = {},
                         ReplayServerOptions options = {})
      : io(kj::setupAsyncIo()),
        server(io, planFrom(planJson), limits, kj::systemPreciseMonotonicClock(), options) {
    server.listen();
  }

  ProcessResult run(std::vector<std::string> argv) {
    return runProcess(io, kj::mv(argv)).wait(io.waitScope);
  }

  ProcessResult curl(std::vector<std::string> extra, const std::string& pathAndQuery) {
    // -s quiet, -S errors, --max-time bounds a hang; body then a last line with the status.
    std::vector<std::string> argv = {"curl", "-sS",     "--max-time", "10",
                                     "-H",   "Expect:", "-w",         "\n%{http_code}"};
    for (auto& e : extra)
      argv.push_back(e);
    argv.push_back(server.httpUrl() + pathAndQuery);
    return run(kj::mv(argv));
  }

  std::vector<ProtocolEvent> events() {
    auto taken = server.recorder().takeEvents();
    all.insert(all.end(), taken.begin(), taken.end());
    return all;
  }

  void settle(kj::Duration delay = 50 * kj::MILLISECONDS) {
    // Let the server finish work that outlives the client (recording after a close).
    io.provider->getTimer().afterDelay(delay).wait(io.waitScope);
  }

  kj::AsyncIoContext io;
  ReplayServer server;
  std::vector<ProtocolEvent> all;
};

}  // namespace rea::helper::test
