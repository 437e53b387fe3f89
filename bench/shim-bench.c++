// Cost of one shim call as the target sees it: 1,000 sequential calls from a /bin/sh loop,
// against the same loop calling /bin/true (the floor: a fork and exec of a tiny program). Each
// shim call is a fork + exec of the static rea-shim-client, a loopback HTTP POST to the ledger
// (kj-http on this process's event loop) and the answer. Median of RUNS runs (default 5); also
// the time to write 32 shim files. Run directly from build/bin (the client is found beside this
// binary). Usage: shim-bench [RUNS]

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <kj/async-io.h>
#include <kj/async-unix.h>
#include <kj/debug.h>

#include "bench/support/arguments.h"
#include "helpers/shim/shim-files.h"
#include "helpers/shim/shim-ledger-server.h"
#include "helpers/shim/shim-ledger.h"

namespace {

using namespace rea::helper;

constexpr int CALLS = 1000;

std::string selfDirectory() {
  char buffer[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  KJ_ASSERT(n > 0);
  std::string path(buffer, size_t(n));
  return path.substr(0, path.rfind('/'));
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs /bin/sh -c script with `environment` while the loop keeps serving; returns seconds.
double runShell(kj::AsyncIoContext& io, const std::string& script,
                std::vector<std::string> environment) {
  std::vector<char*> envp;
  for (std::string& entry : environment)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  auto start = std::chrono::steady_clock::now();
  pid_t pid;
  int rc =
      posix_spawn(&pid, "/bin/sh", nullptr, &attributes, const_cast<char**>(argv), envp.data());
  posix_spawnattr_destroy(&attributes);
  KJ_ASSERT(rc == 0, strerror(rc));
  int pidfd;
  KJ_SYSCALL(pidfd = int(syscall(SYS_pidfd_open, pid, 0)));
  {
    kj::UnixEventPort::FdObserver observer(io.unixEventPort, pidfd,
                                           kj::UnixEventPort::FdObserver::OBSERVE_READ);
    observer.whenBecomesReadable().wait(io.waitScope);
  }
  close(pidfd);
  int status;
  KJ_SYSCALL(waitpid(pid, &status, 0));
  double elapsed = seconds(start);
  KJ_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "benchmark loop failed", script, status);
  return elapsed;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "shim-bench [runs]";
  auto arguments = rea::bench::parseArguments(argc, argv, usage);
  rea::bench::rejectFlags(arguments, usage);
  const int runs = arguments.runs;
  std::string client = selfDirectory() + "/" + SHIM_CLIENT_BINARY_NAME;
  char pattern[] = "/tmp/rea-shim-bench-XXXXXX";
  KJ_ASSERT(mkdtemp(pattern) != nullptr);
  std::string root = pattern;
  std::string shims = root + "/shims";
  KJ_SYSCALL(mkdir(shims.c_str(), 0700));

  ShimPlan plan;
  std::vector<std::string> names;
  for (int i = 0; i < 32; ++i) {
    Shim shim;
    shim.name = i == 0 ? "tool" : i == 1 ? "talk" : "s" + std::to_string(i);
    ShimRoute route;
    route.maxCalls = CALLS * runs;
    if (i == 1) route.outputs.push_back({0, "stdout", "hello from a shim\n"});
    shim.routes.push_back(route);
    names.push_back(shim.name);
    plan.shims.push_back(std::move(shim));
  }
  auto writeStart = std::chrono::steady_clock::now();
  writeShimExecutables(shims, names, client);
  double writeSeconds = seconds(writeStart);
  struct stat clientStat;
  KJ_SYSCALL(stat(client.c_str(), &clientStat));

  auto io = kj::setupAsyncIo();
  ShimLedger ledger(std::move(plan), 100000);
  ShimLedgerServer server(*io.lowLevelProvider, io.provider->getTimer(), ledger);
  server.start();
  std::vector<std::string> environment = {"PATH=" + shims + ":/usr/bin:/bin",
                                          "REA_SHIM_LEDGER_URL=" + server.url()};
  auto loop = [](const std::string& command) {
    return "i=0; while [ $i -lt " + std::to_string(CALLS) + " ]; do " + command +
           "; i=$((i+1)); done";
  };

  struct Case {
    const char* name;
    std::string script;
    std::vector<double> runs;
  };
  std::vector<Case> cases = {
      {"/bin/true", loop("/bin/true"), {}},
      {"shim, no output", loop("tool"), {}},
      {"shim, one stdout chunk", loop("talk >/dev/null"), {}},
  };
  for (int run = 0; run < runs; ++run) {
    for (Case& c : cases)
      c.runs.push_back(runShell(io, c.script, environment));
  }

  std::printf("shim calls: %d sequential calls from a /bin/sh loop, median of %d runs\n", CALLS,
              runs);
  std::printf("%-26s %12s %12s %10s\n", "case", "total ms", "per call us", "vs true");
  double floor = median(cases[0].runs);
  for (const Case& c : cases) {
    double m = median(c.runs);
    std::printf("%-26s %12.1f %12.1f %9.2fx\n", c.name, m * 1e3, m * 1e6 / CALLS, m / floor);
  }
  std::printf("client binary %lld bytes; writing 32 shim files took %.1f ms\n",
              static_cast<long long>(clientStat.st_size), writeSeconds * 1e3);
  std::printf("ledger events recorded: %zu (truncated: %s)\n", ledger.events().size(),
              ledger.truncated() ? "yes" : "no");
  KJ_ASSERT(system(("rm -rf '" + root + "'").c_str()) == 0);
  return 0;
}
