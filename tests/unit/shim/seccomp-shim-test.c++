// The shim helper's filter: its golden listing, a real ledger serving a real shim client under
// it, and what it kills (exec, opening files, new sockets).
#include "helpers/shim/seccomp-policy.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <gtest/gtest.h>
#include <kj/async-io.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "helpers/shim/shim-job.h"
#include "helpers/shim/standalone.h"
#include "tests/test-support.h"

namespace rea::helper {
namespace {

using rea::test::readFile;

std::string runCommand(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    text.append(buffer, n);
  pclose(pipe);
  return text;
}

TEST(ShimSeccompPolicy, MatchesTheGoldenFile) {
  // A policy change must show up as a readable diff of tests/data/seccomp/shim.txt.
  auto golden = readFile(REA_SOURCE_DIR "/tests/data/seccomp/shim.txt");
  EXPECT_EQ(std::string(shimSeccompPolicy().describe().cStr()), golden);
}

TEST(ShimSeccompPolicy, TheBinaryPrintsTheSamePolicy) {
  EXPECT_EQ(runCommand(REA_BINARY_DIR "/bin/rea-shim --seccomp-policy"),
            readFile(REA_SOURCE_DIR "/tests/data/seccomp/shim.txt"));
}

const char PLAN[] = R"([{"name":"tool","routes":[{"arguments":["a"],
  "outputs":[{"at_ms":0,"stream":"stdout","data":"hello\n"}],
  "termination":{"type":"exit","code":4},"max_calls":1}]}])";

// The child: writes the shim, locks down, serves until one call was recorded (or 10 s).
[[noreturn]] void serveUnderTheFilter(const std::string& shims, int portPipe) {
  auto io = kj::setupAsyncIo();
  ShimJobConfig config;
  config.plan = shimPlanFromJson(evidence::Json::parse(PLAN));
  config.shimsDirectory = shims;
  config.clientPath = REA_BINARY_DIR "/bin/rea-shim-client";
  auto paf = kj::newPromiseAndFulfiller<void>();
  auto job = ShimJob::start(
      io, config, [&paf](const ShimEvent&) { paf.fulfiller->fulfill(); },
      []() { shimSeccompPolicy().load(); });
  uint16_t port = job->port();
  if (write(portPipe, &port, sizeof(port)) != sizeof(port)) _exit(3);
  bool recorded =
      paf.promise.then([]() { return true; })
          .exclusiveJoin(
              io.provider->getTimer().afterDelay(10 * kj::SECONDS).then([]() { return false; }))
          .wait(io.waitScope);
  // Let the answer go out before leaving.
  io.provider->getTimer().afterDelay(200 * kj::MILLISECONDS).wait(io.waitScope);
  job->stop();
  _exit(recorded && job->ledger().events().size() == 1 ? 0 : 1);
}

TEST(ShimSeccompPolicy, ARealLedgerServesARealShimClientUnderTheFilter) {
  char pattern[] = "/tmp/rea-seccomp-shim-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string shims = pattern;
  int pipes[2];
  ASSERT_EQ(pipe(pipes), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipes[0]);
    serveUnderTheFilter(shims, pipes[1]);
  }
  close(pipes[1]);
  uint16_t port = 0;
  ASSERT_EQ(read(pipes[0], &port, sizeof(port)), ssize_t(sizeof(port)));
  close(pipes[0]);
  std::string out = runCommand("REA_SHIM_LEDGER_URL=http://127.0.0.1:" + std::to_string(port) +
                               "/invoke " + shims + "/tool a; echo rc=$?");
  EXPECT_EQ(out, "hello\nrc=4\n");
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  unlink((shims + "/tool").c_str());
  rmdir(shims.c_str());
}

[[noreturn]] void execUnderTheFilter() {
  shimSeccompPolicy().load();
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  execv("/bin/true", argv);
  _exit(0);
}

[[noreturn]] void openForWritingUnderTheFilter() {
  shimSeccompPolicy().load();
  open("/tmp/rea-seccomp-shim-never", O_WRONLY | O_CREAT, 0600);
  _exit(0);
}

[[noreturn]] void socketUnderTheFilter() {
  shimSeccompPolicy().load();
  socket(AF_INET, SOCK_STREAM, 0);
  _exit(0);
}

[[noreturn]] void connectUnderTheFilter() {
  shimSeccompPolicy().load();
  connect(0, nullptr, 0);
  _exit(0);
}

TEST(ShimSeccompPolicy, KillsExecFileWritesNewSocketsAndConnect) {
  EXPECT_EXIT(execUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(openForWritingUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(socketUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(connectUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
}

}  // namespace
}  // namespace rea::helper
