// ShimLink against the real rea-shim binary (build/bin), through HelperProcess and Cap'n Proto,
// with real shim clients called from a real /bin/sh.
#include "supervisor/links/shim-link.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include <capnp/rpc-twoparty.h>

#include "helpers/common/clock.h"
#include "schema/shim.capnp.h"
#include "supervisor/run/temp-root.h"
#include "tests/test-support.h"

namespace rea::supervisor {
namespace {

using rea::test::HELPER_DIR;

// ---- A lying rea-shim -------------------------------------------------------------------
// This test binary doubles as a fake helper: started through a symlink `<dir>/<lie>/rea-shim`,
// it serves schema/shim.capnp on fd 3 and, when asked to finish, pushes the events of `<lie>`.

void fillLie(const std::string& lie, capnp::List<schema::ShimInvocation>::Builder events) {
  for (uint32_t i = 0; i < events.size(); ++i) {
    auto event = events[i];
    event.setSequence(i);
    event.setAtNs(helper::monotonicNowNs());
    event.setCommand("tool");
    event.initArguments(1).set(0, "a");
    event.setWorkingDirectory("/");
    event.setRouteIndex(0);
    event.setOutcome(schema::ShimInvocation::Outcome::MATCHED);
  }
  auto first = events[0];
  if (lie == "wrong-route") first.setRouteIndex(1);
  if (lie == "unmatched-with-route") first.setOutcome(schema::ShimInvocation::Outcome::UNMATCHED);
  if (lie == "exhausted-too-early") first.setOutcome(schema::ShimInvocation::Outcome::EXHAUSTED);
  if (lie == "future") first.setAtNs(helper::monotonicNowNs() + 10000000000ull);
  if (lie == "gap") first.setSequence(1);
  if (lie == "not-utf8") first.setCommand(kj::StringPtr("\xff\xfe"));
}

class FakeShimJob final : public schema::ShimJob::Server {
 public:
  FakeShimJob(schema::ShimSink::Client sink, std::string lie)
      : sink(kj::mv(sink)), lie(kj::mv(lie)) {}
  kj::Promise<void> finish(FinishContext) override {
    auto push = sink.pushRequest();
    fillLie(lie, push.initEvents(lie == "over-max" ? 2 : 1));
    return push.send().then([this]() {
      auto done = sink.doneRequest();
      done.initSummary();
      return done.send().ignoreResult();
    });
  }

 private:
  schema::ShimSink::Client sink;
  std::string lie;
};

class FakeShim final : public schema::Shim::Server {
 public:
  explicit FakeShim(std::string lie) : lie(kj::mv(lie)) {}
  kj::Promise<void> start(StartContext call) override {
    call.getResults().setPort(9);
    call.getResults().setJob(kj::heap<FakeShimJob>(call.getParams().getSink(), lie));
    return kj::READY_NOW;
  }

 private:
  std::string lie;
};

__attribute__((constructor)) void actAsAFakeHelperWhenCalledRea_shim() {
  std::ifstream cmdline("/proc/self/cmdline");
  std::string argv0;
  std::getline(cmdline, argv0, '\0');
  const std::string suffix = "/rea-shim";
  if (argv0.size() <= suffix.size() ||
      argv0.compare(argv0.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return;
  }
  std::string dir = argv0.substr(0, argv0.size() - suffix.size());
  std::string lie = dir.substr(dir.rfind('/') + 1);
  auto io = kj::setupAsyncIo();
  auto stream = io.lowLevelProvider->wrapSocketFd(3, kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
  capnp::TwoPartyVatNetwork network(*stream, capnp::rpc::twoparty::Side::SERVER);
  auto rpc = capnp::makeRpcServer(network, kj::heap<FakeShim>(lie));
  network.onDisconnect().wait(io.waitScope);
  _exit(0);
}

evidence::Route routeOf(std::vector<std::string> arguments, int maxCalls) {
  evidence::Route route;
  route.arguments = std::move(arguments);
  evidence::ShimOutput out;
  out.data = "hello\n";
  route.outputs.push_back(out);
  route.termination.kind = evidence::ExitTermination{4};
  route.maxCalls = maxCalls;
  return route;
}

struct ShimLinkFixture {
  TempRoot root;
  std::string shims = root.path() + "/shims";
  ShimLinkFixture() { mkdir(shims.c_str(), 0700); }

  ShimLaunch launch(uint32_t limit = 100) {
    ShimLaunch launch;
    evidence::CommandShim tool;
    tool.name = "tool";
    tool.routes = {routeOf({"a"}, 1), routeOf({"b", "c d"}, 2)};
    launch.shims = {tool};
    launch.shimsDirectory = shims;
    launch.protocolEventLimit = limit;
    launch.t0Ns = helper::monotonicNowNs();
    return launch;
  }

  // Runs `script` in /bin/sh with the shims first on PATH; returns its stdout.
  std::string shell(const std::string& url, const std::string& script) {
    std::string command = "PATH='" + shims + "':/usr/bin:/bin REA_SHIM_LEDGER_URL='" + url +
                          "' /bin/sh -c '" + script + "' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    std::string text;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
      text.append(buffer, n);
    pclose(pipe);
    return text;
  }
};

std::vector<pid_t> childrenNamed(const std::string& comm) {
  // Our own children only (never a process of another test): /proc/self/task/*/children.
  std::vector<pid_t> found;
  DIR* tasks = opendir("/proc/self/task");
  while (struct dirent* task = readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::ifstream children(std::string("/proc/self/task/") + task->d_name + "/children");
    pid_t pid;
    while (children >> pid) {
      std::ifstream name("/proc/" + std::to_string(pid) + "/comm");
      std::string text;
      std::getline(name, text);
      if (text == comm) found.push_back(pid);
    }
  }
  closedir(tasks);
  return found;
}

TEST(ShimLink, WritesTheShimsServesTheLedgerAndRecordsValidatedCalls) {
  auto io = kj::setupAsyncIo();
  ShimLinkFixture fixture;
  ShimLink link(io, HELPER_DIR);
  std::string url = link.start(fixture.launch()).wait(io.waitScope);
  EXPECT_EQ(url, "http://127.0.0.1:" + std::to_string(link.record().port) + "/invoke");
  struct stat info;
  ASSERT_EQ(stat((fixture.shims + "/tool").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);

  std::string out = fixture.shell(
      url,
      "tool a; echo rc=$?; tool a; echo rc=$?; tool b \"c d\"; echo rc=$?; tool zz; echo rc=$?");
  EXPECT_EQ(out, "hello\nrc=4\nrc=127\nhello\nrc=4\nrc=127\n");
  link.finish().wait(io.waitScope);

  const ShimRecord& record = link.record();
  EXPECT_FALSE(record.fault.has_value()) << record.fault->reason;
  EXPECT_TRUE(record.streamDone);
  EXPECT_FALSE(record.truncated);
  ASSERT_EQ(record.calls.size(), 4u);
  EXPECT_EQ(record.calls[0].outcome, ShimCall::Outcome::MATCHED);
  EXPECT_EQ(record.calls[0].routeIndex, 0u);
  EXPECT_EQ(record.calls[1].outcome, ShimCall::Outcome::EXHAUSTED);
  EXPECT_EQ(record.calls[1].routeIndex, 0u);
  EXPECT_EQ(record.calls[2].outcome, ShimCall::Outcome::MATCHED);
  EXPECT_EQ(record.calls[2].routeIndex, 1u);
  EXPECT_EQ(record.calls[2].arguments, (std::vector<std::string>{"b", "c d"}));
  EXPECT_EQ(record.calls[3].outcome, ShimCall::Outcome::UNMATCHED);
  EXPECT_FALSE(record.calls[3].routeIndex.has_value());
  for (size_t i = 0; i < record.calls.size(); ++i) {
    EXPECT_EQ(record.calls[i].sequence, i);
    EXPECT_EQ(record.calls[i].command, "tool");
    EXPECT_FALSE(record.calls[i].workingDirectory.empty());
    if (i > 0) {
      EXPECT_LE(record.calls[i - 1].atNs, record.calls[i].atNs);
    }
  }
  ASSERT_TRUE(record.helperEnd.has_value());
  EXPECT_EQ(record.helperEnd->kind, HelperEnd::Kind::STOPPED_BY_US);
  // Once finished, the ledger is gone: a late call cannot reach it.
  EXPECT_NE(fixture.shell(url, "tool a; echo rc=$?").find("rc=127"), std::string::npos);
}

TEST(ShimLink, TheProtocolEventLimitTruncatesButEveryCallIsAnswered) {
  auto io = kj::setupAsyncIo();
  ShimLinkFixture fixture;
  ShimLink link(io, HELPER_DIR);
  std::string url = link.start(fixture.launch(2)).wait(io.waitScope);
  std::string out = fixture.shell(url, "tool a; tool b \"c d\"; tool b \"c d\"; tool q; echo end");
  EXPECT_EQ(out, "hello\nhello\nhello\nend\n");
  link.finish().wait(io.waitScope);
  const ShimRecord& record = link.record();
  EXPECT_FALSE(record.fault.has_value());
  EXPECT_EQ(record.calls.size(), 2u);
  EXPECT_TRUE(record.truncated);
  EXPECT_EQ(record.droppedCalls, 2u);
}

TEST(ShimLink, ReportsAHelperKilledMidRunWithoutHanging) {
  auto io = kj::setupAsyncIo();
  ShimLinkFixture fixture;
  ShimLink link(io, HELPER_DIR);
  std::string url = link.start(fixture.launch()).wait(io.waitScope);
  auto helpers = childrenNamed("rea-shim");
  ASSERT_EQ(helpers.size(), 1u);
  ASSERT_EQ(::kill(helpers[0], SIGKILL), 0);
  // Let the link notice; a call meanwhile finds no ledger and exits 127.
  io.provider->getTimer().afterDelay(100 * kj::MILLISECONDS).wait(io.waitScope);
  EXPECT_NE(fixture.shell(url, "tool a; echo rc=$?").find("rc=127"), std::string::npos);
  link.finish().wait(io.waitScope);
  const ShimRecord& record = link.record();
  ASSERT_TRUE(record.fault.has_value());
  EXPECT_EQ(record.fault->reason,
            "the shim helper crashed with signal 9 (SIGKILL) before its event stream ended");
  EXPECT_FALSE(record.streamDone);
  EXPECT_TRUE(childrenNamed("rea-shim").empty());
}

TEST(ShimLink, AShimDirectoryThatCannotBeWrittenFailsTheStart) {
  auto io = kj::setupAsyncIo();
  ShimLinkFixture fixture;
  ShimLink link(io, HELPER_DIR);
  auto launch = fixture.launch();
  launch.shimsDirectory = fixture.root.path() + "/missing";
  EXPECT_ANY_THROW(link.start(std::move(launch)).wait(io.waitScope));
  link.finish().wait(io.waitScope);
  EXPECT_FALSE(link.record().fault.has_value());
  EXPECT_TRUE(childrenNamed("rea-shim").empty());
}

TEST(ShimLink, RefusesALaunchOutOfRangeBeforeSpawningAnything) {
  auto io = kj::setupAsyncIo();
  ShimLinkFixture fixture;
  {
    ShimLink link(io, HELPER_DIR);
    auto launch = fixture.launch();
    launch.protocolEventLimit = 0;
    EXPECT_ANY_THROW(link.start(std::move(launch)).wait(io.waitScope));
  }
  {
    ShimLink link(io, HELPER_DIR);
    auto launch = fixture.launch();
    launch.shims[0].name = "../escape";
    EXPECT_ANY_THROW(link.start(std::move(launch)).wait(io.waitScope));
  }
  EXPECT_TRUE(childrenNamed("rea-shim").empty());
}

TEST(ShimLink, StopsAHelperWhoseEventsBreakThePlanAndRecordsTheFault) {
  // Rules 10 and 11 of B §5.4 and the stream's own rules hold whatever a helper claims.
  char pattern[] = "/tmp/rea-fake-shim-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  std::string base = pattern;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(n, 0);
  self[n] = 0;
  const std::vector<std::pair<std::string, std::string>> lies = {
      {"wrong-route", "a route that is not the one the arguments match"},
      {"over-max", "more matched calls than max_calls"},
      {"unmatched-with-route", "an unmatched call with a route"},
      {"exhausted-too-early", "an exhausted route with calls left"},
      {"future", "a timestamp in the future"},
      {"gap", "a sequence that is not contiguous"},
      {"not-utf8", "a command that is not UTF-8"},
  };
  for (const auto& [lie, problem] : lies) {
    std::string dir = base + "/" + lie;
    ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
    ASSERT_EQ(symlink(self, (dir + "/rea-shim").c_str()), 0);
    auto io = kj::setupAsyncIo();
    ShimLinkFixture fixture;
    ShimLink link(io, dir);
    link.start(fixture.launch()).wait(io.waitScope);
    link.finish().wait(io.waitScope);
    const ShimRecord& record = link.record();
    ASSERT_TRUE(record.fault.has_value()) << lie;
    EXPECT_EQ(record.fault->reason,
              "the shim helper sent a malformed message (" + problem + ") and was stopped")
        << lie;
    EXPECT_FALSE(record.streamDone) << lie;
    unlink((dir + "/rea-shim").c_str());
    rmdir(dir.c_str());
  }
  rmdir(base.c_str());
  EXPECT_TRUE(childrenNamed("rea-shim").empty());
}

}  // namespace
}  // namespace rea::supervisor
