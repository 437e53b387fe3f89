// The replay helper's filter: its golden listing, a real request served under it, and what it
// kills (exec, open, a new socket, connect, fork).
#include "helpers/replay/seccomp-policy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <kj/async-io.h>
#include <nlohmann/json.hpp>

#include "helpers/replay/replay-job.h"
#include "helpers/replay/standalone.h"
#include "tests/test-support.h"

namespace rea::helper {
namespace {

using rea::test::readFile;

TEST(ReplaySeccompPolicy, MatchesTheGoldenFile) {
  auto golden = readFile(REA_SOURCE_DIR "/tests/data/seccomp/replay.txt");
  EXPECT_EQ(std::string(replaySeccompPolicy().describe().cStr()), golden);
}

TEST(ReplaySeccompPolicy, TheBinaryPrintsTheSamePolicy) {
  FILE* pipe = popen(REA_BINARY_DIR "/bin/rea-replay --seccomp-policy", "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    text.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(text, readFile(REA_SOURCE_DIR "/tests/data/seccomp/replay.txt"));
}

[[noreturn]] void serveUnderTheFilter() {
  // Listen, start curl (before the filter: forking is forbidden after), lock down, then serve
  // an HTTP request and a WebSocket session under the filter.
  auto io = kj::setupAsyncIo();
  ReplayJobConfig config;
  config.plan = replayPlanFromJson(nlohmann::ordered_json::parse(
      R"({"http":[{"method":"GET","path":"/x","status":200,"body":"filtered",
          "response_headers":{"X-A":"b"},"delay_ms":20}],"websocket_messages":["w"]})"));
  std::vector<ProtocolEvent> events;
  ReplayJob job(io, kj::mv(config), [&](std::vector<ProtocolEvent> more) {
    for (auto& e : more)
      events.push_back(kj::mv(e));
  });
  job.start([&job]() {
    std::string url = "http://127.0.0.1:" + std::to_string(job.port()) + "/x";
    std::string ws = "ws://127.0.0.1:" + std::to_string(job.port()) + "/ws";
    std::string script = "curl -sS --max-time 5 -o /dev/null " + url + "; " +
                         REA_BINARY_DIR "/bin/rea-ws-client --close-after 1 " + ws + " >/dev/null";
    if (fork() == 0) {
      int null = open("/dev/null", O_WRONLY);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    replaySeccompPolicy().load();
  });
  auto& timer = io.provider->getTimer();
  for (int i = 0; i < 500 && events.size() < 3; ++i)
    timer.afterDelay(10 * kj::MILLISECONDS).wait(io.waitScope);
  timer.afterDelay(50 * kj::MILLISECONDS).wait(io.waitScope);
  auto summary = job.finish();
  bool ok = events.size() == 3 && events[1].data == "filtered" && events[2].data == "w" &&
            summary.diagnosticCount == 0;
  _exit(ok ? 0 : 1);
}

TEST(ReplaySeccompPolicy, ARealServerAnswersUnderTheFilter) {
  EXPECT_EXIT(serveUnderTheFilter(), testing::ExitedWithCode(0), "");
}

[[noreturn]] void execUnderTheFilter() {
  replaySeccompPolicy().load();
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  execv("/bin/true", argv);
  _exit(0);
}

[[noreturn]] void openForWritingUnderTheFilter() {
  replaySeccompPolicy().load();
  open("/dev/null", O_WRONLY);
  _exit(0);
}

[[noreturn]] void socketUnderTheFilter() {
  replaySeccompPolicy().load();
  socket(AF_INET, SOCK_STREAM, 0);
  _exit(0);
}

[[noreturn]] void connectUnderTheFilter() {
  // The socket exists before the filter; connecting it (to 127.0.0.1 only) is still refused.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  replaySeccompPolicy().load();
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(9);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  _exit(0);
}

[[noreturn]] void forkUnderTheFilter() {
  replaySeccompPolicy().load();
  fork();
  _exit(0);
}

TEST(ReplaySeccompPolicy, KillsExecFileWritesNewSocketsConnectAndFork) {
  EXPECT_EXIT(execUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(openForWritingUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(socketUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(connectUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(forkUnderTheFilter(), testing::KilledBySignal(SIGSYS), "");
}

}  // namespace
}  // namespace rea::helper
