// ReplayLink against the real rea-replay binary: a served request arrives validated, a plan the
// helper refuses rejects start, a killed helper becomes a fault, and a loopback start hands out
// a namespace that is not ours where the server answers. Every client talks to 127.0.0.1 only.
#include "supervisor/links/replay-link.h"

#include <seccomp.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>
#include <kj/async-io.h>

#include "helpers/common/standalone-plan.h"
#include "tests/unit/replay-test-support.h"

namespace rea::supervisor {
namespace {

using evidence::ProtocolDirection;
using evidence::ProtocolKind;
using evidence::ProtocolOutcome;

std::string helperDirectory() {
  return REA_BINARY_DIR "/bin";
}

ReplayLaunch launchFor(const std::string& planJson) {
  ReplayLaunch launch;
  launch.plan = helper::scenarioParts({{"replay", evidence::Json::parse(planJson)}}).replay;
  return launch;
}

helper::test::ProcessResult curl(kj::AsyncIoContext& io, std::vector<std::string> prefix,
                                 const std::string& url) {
  std::vector<std::string> argv = std::move(prefix);
  for (const char* a : {"curl", "-sS", "--max-time", "10", "-w", "\n%{http_code}"})
    argv.push_back(a);
  argv.push_back(url);
  return helper::test::runProcess(io, kj::mv(argv)).wait(io.waitScope);
}

const char HELLO_PLAN[] = R"({"http":[{"method":"GET","path":"/hello","status":200,
    "body":"hi there"}],"websocket_messages":[]})";

TEST(ReplayLink, AServedRequestArrivesAsValidatedEvents) {
  auto io = kj::setupAsyncIo();
  ReplayLink link(io, helperDirectory());
  ReplayStart start = link.start(launchFor(HELLO_PLAN)).wait(io.waitScope);
  EXPECT_EQ(start.httpUrl, "http://127.0.0.1:" + std::to_string(start.port));
  EXPECT_EQ(start.websocketUrl, "ws://127.0.0.1:" + std::to_string(start.port) + "/ws");
  EXPECT_FALSE(start.netnsPath.has_value());

  EXPECT_EQ(curl(io, {}, start.httpUrl + "/hello?x=1").out, "hi there\n200");
  EXPECT_EQ(curl(io, {}, start.httpUrl + "/hello").out, "\n409");
  link.finish().wait(io.waitScope);

  const ReplayRecord& r = link.record();
  EXPECT_FALSE(r.fault.has_value()) << r.fault->reason;
  EXPECT_TRUE(r.streamDone);
  EXPECT_FALSE(r.truncated());
  EXPECT_EQ(r.originNs, start.originNs);
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[0].direction, ProtocolDirection::REQUEST);
  EXPECT_EQ(r.events[0].method, "GET");
  EXPECT_EQ(r.events[0].path, "/hello");
  EXPECT_EQ(r.events[0].outcome, ProtocolOutcome::MATCHED);
  EXPECT_EQ(r.events[1].data, "hi there");
  EXPECT_EQ(r.events[2].outcome, ProtocolOutcome::SCRIPT_EXHAUSTED);
  for (size_t i = 0; i < r.events.size(); ++i) {
    EXPECT_EQ(r.events[i].sequence, i);
    EXPECT_GE(r.events[i].atNs, start.originNs);
  }
  ASSERT_TRUE(r.helperEnd.has_value());
  EXPECT_EQ(r.helperEnd->kind, HelperEnd::Kind::STOPPED_BY_US);
}

TEST(ReplayLink, HostileRequestsAreAnsweredUnderTheFilterAndArriveAsDiagnostics) {
  auto io = kj::setupAsyncIo();
  ReplayLink link(io, helperDirectory());
  ReplayStart start = link.start(launchFor(HELLO_PLAN)).wait(io.waitScope);
  EXPECT_EQ(curl(io, {}, start.httpUrl + "/hello").out, "hi there\n200");
  auto bad =
      helper::test::runProcess(io, {"curl", "-sS", "--max-time", "10", "-o", "/dev/null", "-w",
                                    "%{http_code}", "-X", "get", start.httpUrl + "/hello"})
          .wait(io.waitScope);
  EXPECT_EQ(bad.out, "501");
  auto big = helper::test::runProcess(
                 io, {"curl", "-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}",
                      "-H", "X-Big: " + std::string(20000, 'b'), start.httpUrl + "/hello"})
                 .wait(io.waitScope);
  EXPECT_EQ(big.out, "431");
  link.finish().wait(io.waitScope);
  const ReplayRecord& r = link.record();
  EXPECT_FALSE(r.fault.has_value()) << r.fault->reason;
  ASSERT_GE(r.diagnosticCount, 2u);
  std::vector<std::string> kinds;
  for (const auto& d : r.diagnostics)
    kinds.push_back(d.kind);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "bad_request"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "headers_too_large"), kinds.end());
  EXPECT_EQ(r.events.size(), 2u);  // only the good request
}

TEST(ReplayLink, APlanTheHelperRefusesRejectsStart) {
  auto io = kj::setupAsyncIo();
  ReplayLink link(io, helperDirectory());
  ReplayLaunch launch = launchFor(R"({"http":[{"method":"GET","path":"/x","status":200,
      "body":"","response_headers":{"Good":"v"}}]})");
  // A plan the scenario parser refuses reaches the helper all the same: its own check answers.
  launch.plan.http[0].responseHeaders[0].name = "Bad Name";
  bool rejected = false;
  link.start(kj::mv(launch))
      .then(
          [](ReplayStart) {},
          [&](kj::Exception&& e) {
            rejected = true;
            EXPECT_NE(std::string(e.getDescription().cStr()).find("HTTP token"), std::string::npos)
                << e.getDescription().cStr();
          })
      .wait(io.waitScope);
  EXPECT_TRUE(rejected);
  link.finish().wait(io.waitScope);
  EXPECT_FALSE(link.record().fault.has_value());
}

TEST(ReplayLink, AKilledHelperIsAFaultAndFinishStillResolves) {
  auto io = kj::setupAsyncIo();
  ReplayLink link(io, helperDirectory());
  ReplayStart start = link.start(launchFor(HELLO_PLAN)).wait(io.waitScope);
  EXPECT_EQ(curl(io, {}, start.httpUrl + "/hello").out, "hi there\n200");
  ASSERT_EQ(kill(link.helperPid(), SIGKILL), 0);
  io.provider->getTimer().afterDelay(100 * kj::MILLISECONDS).wait(io.waitScope);
  link.finish().wait(io.waitScope);
  const ReplayRecord& r = link.record();
  ASSERT_TRUE(r.fault.has_value());
  EXPECT_NE(r.fault->reason.find("the replay helper crashed with signal 9"), std::string::npos)
      << r.fault->reason;
  EXPECT_FALSE(r.streamDone);
}

TEST(ReplayLink, ALoopbackStartListensInANamespaceThatIsNotOurs) {
  ASSERT_EQ(loopbackNetnsUnavailable(), std::nullopt);
  auto io = kj::setupAsyncIo();
  ReplayLink link(io, helperDirectory());
  ReplayLaunch launch = launchFor(HELLO_PLAN);
  launch.loopbackNetns = true;
  ReplayStart start = link.start(kj::mv(launch)).wait(io.waitScope);
  ASSERT_TRUE(start.netnsPath.has_value());
  struct stat ours, theirs;
  ASSERT_EQ(stat("/proc/self/ns/net", &ours), 0);
  ASSERT_EQ(stat(start.netnsPath->c_str(), &theirs), 0);
  EXPECT_NE(ours.st_ino, theirs.st_ino);

  // From inside, the server answers (that it is absent outside: unit-replay-netns).
  std::vector<std::string> enter = {"nsenter"};
  if (start.usernsPath) enter.push_back("--user=" + *start.usernsPath);
  enter.push_back("--net=" + *start.netnsPath);
  EXPECT_EQ(curl(io, enter, start.httpUrl + "/hello").out, "hi there\n200");
  link.finish().wait(io.waitScope);
  EXPECT_FALSE(link.record().fault.has_value());
  EXPECT_EQ(link.record().events.size(), 2u);
}

TEST(ReplayLink, WithoutAnyWayToMakeANamespaceTheRefusalSaysWhy) {
  pid_t pid = fork();
  if (pid == 0) {
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
    if (seccomp_load(ctx) != 0) _exit(2);
    auto why = loopbackNetnsUnavailable();
    _exit(why &&
                  why->find("unshare(CLONE_NEWNET) failed (Operation not permitted)") !=
                      std::string::npos &&
                  why->find("unshare(CLONE_NEWUSER|CLONE_NEWNET) (Operation not permitted)") !=
                      std::string::npos
              ? 0
              : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace rea::supervisor
