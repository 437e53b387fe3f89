// PtyLink against the real rea-pty binary (build/bin), through HelperProcess and Cap'n Proto.
#include "supervisor/links/pty-link.h"

#include <capnp/rpc-twoparty.h>
#include <errno.h>
#include <fstream>
#include <gtest/gtest.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers/common/clock.h"
#include "schema/pty.capnp.h"
#include "tests/test-support.h"

namespace rea::supervisor {
namespace {

using rea::test::HELPER_DIR;

PtyLaunch launchOf(std::string executable, std::vector<std::string> arguments) {
  PtyLaunch launch;
  launch.executable = kj::mv(executable);
  launch.arguments = kj::mv(arguments);
  launch.workingDirectory = "/";
  launch.environment = {"PATH=/usr/bin:/bin", "TERM=xterm-256color"};
  launch.timeoutMs = 60000;
  launch.idleTimeoutMs = 60000;
  launch.t0Ns = helper::monotonicNowNs();
  return launch;
}

struct Recorder final : public PtyObserver {
  std::string text;
  int dispatches = 0;
  int exits = 0;
  int losses = 0;
  void output(const PtyChunk& chunk) override { text += chunk.data; }
  void dispatched(const PtyDispatch&) override { ++dispatches; }
  void exited(const PtyExit&) override { ++exits; }
  void lost(const HelperFault&) override { ++losses; }
};

std::string outputOf(const PtyRecord& record) {
  std::string all;
  for (auto& chunk : record.output)
    all += chunk.data;
  return all;
}

pid_t parentOf(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  if (close == std::string::npos) return 0;
  char state;
  int ppid = 0;
  sscanf(line.c_str() + close + 2, "%c %d", &state, &ppid);
  return ppid;
}

bool goneOrZombie(pid_t pid) {
  // An orphaned target is reaped by init, which may take a moment (or never, in a container
  // whose pid 1 does not reap): dead is what matters.
  for (int i = 0; i < 200; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    auto close = line.rfind(')');
    if (close != std::string::npos && line[close + 2] == 'Z') return true;
    usleep(10000);
  }
  return false;
}

void expectNoChildrenLeft() {
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

// ---- A misbehaving rea-pty --------------------------------------------------------------
// This test binary doubles as a fake helper: started through a symlink named rea-pty, it
// serves a Pty whose stream breaks one rule, chosen by the launch's executable.

class FakePtyJob final : public schema::PtyJob::Server {
 public:
  kj::Promise<void> finish(FinishContext) override { return kj::READY_NOW; }  // never done()
};

class FakePty final : public schema::Pty::Server {
 public:
  explicit FakePty(kj::Timer& timer) : timer(timer) {}

  kj::Promise<void> start(StartContext call) override {
    auto config = call.getParams().getConfig();
    auto mode =
        std::string(config.getExecutable().asChars().begin(), config.getExecutable().size());
    auto results = call.getResults();
    results.setJob(kj::heap<FakePtyJob>());
    results.setRootPid(1);
    results.setSpawnedAtNs(helper::monotonicNowNs());
    if (mode == "/fake/sink-dropped") return kj::READY_NOW;
    sink = call.getParams().getSink();
    // Later, so that the start answer arrives first.
    pending = timer.afterDelay(50 * kj::MILLISECONDS)
                  .then([this, mode]() { return push(mode); })
                  .eagerlyEvaluate([](kj::Exception&&) {});
    return kj::READY_NOW;
  }

 private:
  kj::Timer& timer;
  kj::Maybe<schema::PtySink::Client> sink;
  kj::Promise<void> pending = nullptr;

  kj::Promise<void> push(std::string mode) {
    auto request = KJ_ASSERT_NONNULL(sink).pushRequest();
    uint64_t now = helper::monotonicNowNs();
    if (mode == "/fake/bad-utf8") {
      auto events = request.initEvents(1);
      events[0].setAtNs(now);
      events[0].setOutput(kj::StringPtr("\xff").asBytes());
    } else if (mode == "/fake/back-in-time") {
      auto events = request.initEvents(2);
      events[0].setAtNs(now);
      events[0].setOutput(kj::StringPtr("a").asBytes());
      events[1].setAtNs(now - 1000);
      events[1].setOutput(kj::StringPtr("b").asBytes());
    } else if (mode == "/fake/unknown-index") {
      auto events = request.initEvents(1);
      events[0].setAtNs(now);
      events[0].initDispatched().setEventIndex(3);
    } else if (mode.compare(0, 15, "/fake/rendered-") == 0) {
      // Rendered frames (B §6.11) breaking one rule each; the default launch is 80x24.
      auto events = request.initEvents(1);
      events[0].setAtNs(now);
      auto frame = events[0].initRendered();
      frame.setColumns(mode == "/fake/rendered-size" ? 0 : 4);
      frame.setRows(2);
      // x = columns is a cursor waiting to wrap (valid); one more is off the screen.
      frame.setCursorX(mode == "/fake/rendered-cursor" ? 5 : 4);
      auto lines = frame.initLines(mode == "/fake/rendered-lines" ? 1 : 2);
      for (auto i : kj::indices(lines))
        lines.set(i, kj::StringPtr(mode == "/fake/rendered-utf8" ? "ab\xff " : "abc ").asBytes());
      frame.setSerializedState(kj::StringPtr("abc").asBytes());
    } else if (mode == "/fake/unknown-reply") {
      auto events = request.initEvents(1);
      events[0].setAtNs(now);
      auto reply = events[0].initReplied();
      reply.setQuery("whoami");
      reply.setReply(kj::StringPtr("\x1b[0n").asBytes());
    } else {  // "/fake/no-done": a correct exit, then finish without done
      auto events = request.initEvents(1);
      events[0].setAtNs(now);
      events[0].initExited().setCode(0);
    }
    return request.send();
  }
};

[[noreturn]] void serveFakeHelper() {
  auto io = kj::setupAsyncIo();
  auto stream = io.lowLevelProvider->wrapSocketFd(3, kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP);
  capnp::TwoPartyVatNetwork network(*stream, capnp::rpc::twoparty::Side::SERVER);
  auto rpc = capnp::makeRpcServer(network, kj::heap<FakePty>(io.provider->getTimer()));
  network.onDisconnect().wait(io.waitScope);
  _exit(0);
}

struct FakeHelperHook {
  FakeHelperHook() {
    std::string name = program_invocation_name;
    if (name.size() >= 8 && name.compare(name.size() - 8, 8, "/rea-pty") == 0) serveFakeHelper();
  }
} fakeHelperHook;

struct FakeHelperDirectory {
  // A temporary directory whose rea-pty is this very test binary.
  std::string path;
  FakeHelperDirectory() {
    char templ[] = "/tmp/rea-fake-pty-XXXXXX";
    path = mkdtemp(templ);
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    EXPECT_EQ(symlink(self, (path + "/rea-pty").c_str()), 0);
  }
  ~FakeHelperDirectory() {
    unlink((path + "/rea-pty").c_str());
    rmdir(path.c_str());
  }
};

HelperFault runAgainstFakeHelper(const char* mode, kj::Duration deadline = 5 * kj::SECONDS) {
  auto io = kj::setupAsyncIo();
  FakeHelperDirectory directory;
  PtyLink link(io, directory.path);
  link.start(launchOf(mode, {})).wait(io.waitScope);
  link.whenExited().wait(io.waitScope);  // never hangs, whatever the helper does
  link.finish(deadline).wait(io.waitScope);
  EXPECT_FALSE(link.record().streamDone);
  EXPECT_TRUE(link.record().fault.has_value());
  if (!link.record().fault) return HelperFault{};
  return *link.record().fault;
}

TEST(PtyLink, CapturesEchoThroughTheRealHelper) {
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  {
    PtyLink link(io, HELPER_DIR, recorder);
    auto spawn = link.start(launchOf("/bin/echo", {"hi"})).wait(io.waitScope);
    EXPECT_GT(spawn.rootPid, 0);
    auto exit = link.whenExited().wait(io.waitScope);
    ASSERT_TRUE(exit.has_value());
    EXPECT_EQ(exit->code, 0);
    EXPECT_FALSE(exit->signal.has_value());
    EXPECT_EQ(exit->reason, PtyExit::Reason::EXITED);
    link.finish().wait(io.waitScope);

    auto& record = link.record();
    EXPECT_EQ(outputOf(record), "hi\r\n");
    EXPECT_EQ(recorder.text, "hi\r\n");
    EXPECT_EQ(recorder.exits, 1);
    EXPECT_TRUE(record.streamDone);
    EXPECT_FALSE(record.outputTruncated);
    EXPECT_FALSE(record.fault.has_value()) << record.fault->reason;
    ASSERT_TRUE(record.helperEnd.has_value());
    EXPECT_EQ(record.helperEnd->kind, HelperEnd::Kind::STOPPED_BY_US);
    ASSERT_TRUE(record.spawn.has_value());
    EXPECT_EQ(record.spawn->rootPid, spawn.rootPid);
    EXPECT_GE(record.exit->atNs, spawn.atNs);
  }
  EXPECT_EQ(recorder.losses, 0);
  expectNoChildrenLeft();
}

TEST(PtyLink, CarriesInteractionsAndLimitsAcrossTheHelper) {
  auto io = kj::setupAsyncIo();
  PtyLink link(io, HELPER_DIR);
  auto launch = launchOf("/bin/sh", {"-c", "read x; echo got:$x; sleep 0.3; printf 0123456789"});
  PtyInteraction input;
  input.type = PtyInteraction::Type::INPUT;
  input.atMs = 100;
  input.data = "hello\r";
  PtyInteraction late;
  late.type = PtyInteraction::Type::SIGNAL;
  late.atMs = 50000;
  late.signal = SIGTERM;
  launch.events = {input, late};
  launch.maxOutputBytes = 20;  // "hello\r\n" + "got:hello\r\n" fit; the last chunk does not
  link.start(kj::mv(launch)).wait(io.waitScope);
  link.whenExited().wait(io.waitScope);
  link.finish().wait(io.waitScope);
  auto& record = link.record();
  if (record.fault) ADD_FAILURE() << record.fault->reason;
  EXPECT_EQ(outputOf(record), "hello\r\ngot:hello\r\n");
  EXPECT_TRUE(record.outputTruncated);
  EXPECT_EQ(record.droppedChunks, 1u);
  ASSERT_EQ(record.interactions.size(), 2u);
  EXPECT_EQ(record.interactions[0].eventIndex, 0u);
  EXPECT_EQ(record.interactions[0].outcome, PtyDispatch::Outcome::DISPATCHED);
  EXPECT_EQ(record.interactions[1].eventIndex, 1u);
  EXPECT_EQ(record.interactions[1].outcome, PtyDispatch::Outcome::TARGET_EXITED);
  EXPECT_EQ(record.interactions[1].atNs, record.exit->atNs);
  EXPECT_FALSE(record.fault.has_value());
}

TEST(PtyLink, TimeoutKillsTheTargetInsideTheHelper) {
  auto io = kj::setupAsyncIo();
  PtyLink link(io, HELPER_DIR);
  auto launch = launchOf("/bin/sleep", {"30"});
  launch.timeoutMs = 200;
  link.start(kj::mv(launch)).wait(io.waitScope);
  auto exit = link.whenExited().wait(io.waitScope);
  ASSERT_TRUE(exit.has_value());
  EXPECT_FALSE(exit->code.has_value());
  EXPECT_EQ(exit->signal, SIGKILL);
  EXPECT_EQ(exit->reason, PtyExit::Reason::TIMEOUT);
  link.finish().wait(io.waitScope);
  EXPECT_FALSE(link.record().fault.has_value());
}

TEST(PtyLink, ReportsAHelperKilledMidRunWithoutHanging) {
  auto io = kj::setupAsyncIo();
  Recorder recorder;
  pid_t root;
  {
    PtyLink link(io, HELPER_DIR, recorder);
    auto spawn = link.start(launchOf("/bin/sleep", {"30"})).wait(io.waitScope);
    root = spawn.rootPid;
    pid_t helper = parentOf(root);
    ASSERT_GT(helper, 1);
    ASSERT_EQ(::kill(helper, SIGKILL), 0);

    auto exit = link.whenExited().wait(io.waitScope);
    EXPECT_FALSE(exit.has_value());
    link.finish().wait(io.waitScope);
    auto& record = link.record();
    ASSERT_TRUE(record.fault.has_value());
    EXPECT_EQ(record.fault->reason,
              "the pty helper crashed with signal 9 (SIGKILL) before its event stream ended");
    ASSERT_TRUE(record.fault->end.has_value());
    EXPECT_EQ(record.fault->end->kind, HelperEnd::Kind::CRASHED);
    EXPECT_FALSE(record.streamDone);
    EXPECT_EQ(recorder.losses, 1);
  }
  EXPECT_TRUE(goneOrZombie(root)) << "the target outlived its helper";
  expectNoChildrenLeft();
}

TEST(PtyLink, AMissingHelperBinaryFailsTheStartAndIsReported) {
  auto io = kj::setupAsyncIo();
  PtyLink link(io, "/nonexistent");
  EXPECT_ANY_THROW(link.start(launchOf("/bin/echo", {"hi"})).wait(io.waitScope));
  EXPECT_FALSE(link.whenExited().wait(io.waitScope).has_value());
  link.finish().wait(io.waitScope);
  auto& record = link.record();
  ASSERT_TRUE(record.fault.has_value());
  ASSERT_TRUE(record.fault->end.has_value());
  EXPECT_EQ(record.fault->end->kind, HelperEnd::Kind::DIED_BEFORE_READY);
  EXPECT_EQ(record.fault->end->code, 127);
  expectNoChildrenLeft();
}

TEST(PtyLink, RefusesALaunchOutOfRangeBeforeSpawning) {
  auto io = kj::setupAsyncIo();
  PtyLink link(io, HELPER_DIR);
  auto launch = launchOf("/bin/echo", {"hi"});
  launch.columns = 0;
  EXPECT_ANY_THROW(link.start(kj::mv(launch)).wait(io.waitScope));
  EXPECT_FALSE(link.whenExited().wait(io.waitScope).has_value());
  link.finish().wait(io.waitScope);
  EXPECT_FALSE(link.record().fault.has_value());
  expectNoChildrenLeft();
}

TEST(PtyLink, ALaunchTheHelperRefusesIsAnErrorNotAFault) {
  auto io = kj::setupAsyncIo();
  PtyLink link(io, HELPER_DIR);
  // A NUL inside an argument passes our range checks but not the helper's.
  auto launch = launchOf("/bin/echo", {std::string("a\0b", 3)});
  EXPECT_ANY_THROW(link.start(kj::mv(launch)).wait(io.waitScope));
  EXPECT_FALSE(link.whenExited().wait(io.waitScope).has_value());
  link.finish().wait(io.waitScope);
  EXPECT_FALSE(link.record().fault.has_value());
  ASSERT_TRUE(link.record().helperEnd.has_value());
  EXPECT_EQ(link.record().helperEnd->kind, HelperEnd::Kind::STOPPED_BY_US);
  expectNoChildrenLeft();
}

TEST(PtyLink, StopsAHelperThatSendsOutputThatIsNotUtf8) {
  auto fault = runAgainstFakeHelper("/fake/bad-utf8");
  EXPECT_EQ(fault.reason,
            "the pty helper sent a malformed message (output that is not UTF-8) and was stopped");
  ASSERT_TRUE(fault.end.has_value());
  EXPECT_EQ(fault.end->kind, HelperEnd::Kind::STOPPED_BY_US);
  expectNoChildrenLeft();
}

TEST(PtyLink, StopsAHelperWhoseTimestampsGoBackInTime) {
  auto fault = runAgainstFakeHelper("/fake/back-in-time");
  EXPECT_EQ(fault.reason,
            "the pty helper sent a malformed message (timestamps go back in time) and was stopped");
}

TEST(PtyLink, StopsAHelperThatReportsAnUnknownEvent) {
  auto fault = runAgainstFakeHelper("/fake/unknown-index");
  EXPECT_EQ(fault.reason,
            "the pty helper sent a malformed message (an unknown event index) and was stopped");
}

TEST(PtyLink, AFinishWithoutDoneIsAFault) {
  auto fault = runAgainstFakeHelper("/fake/no-done");
  EXPECT_EQ(
      fault.reason,
      "the pty helper sent a malformed message (finish returned before done) and was stopped");
}

TEST(PtyLink, ASinkDroppedWithoutDoneIsAFault) {
  auto fault = runAgainstFakeHelper("/fake/sink-dropped");
  EXPECT_EQ(fault.reason,
            "the pty helper sent a malformed message (event sink dropped without done) "
            "and was stopped");
}

}  // namespace
}  // namespace rea::supervisor

// ---- Rendered frames and answered queries (B §6.11) -------------------------------------

namespace rea::supervisor {
namespace {

TEST(PtyLink, CarriesRenderedFramesAndAnsweredQueriesFromTheRealHelper) {
  auto io = kj::setupAsyncIo();
  PtyLink link(io, HELPER_DIR);
  auto launch = launchOf("/bin/bash", {"-c",
                                       "stty -echo -icanon; printf 'ab\\033[6n'; "
                                       "IFS= read -r -d R r; printf '\\r\\nok'"});
  launch.columns = 10;
  launch.rows = 3;
  PtyInteraction resize;
  resize.type = PtyInteraction::Type::RESIZE;
  resize.atMs = 50000;  // never fires: the root exits first
  resize.columns = 20;
  resize.rows = 5;
  launch.events = {resize};
  link.start(kj::mv(launch)).wait(io.waitScope);
  link.whenExited().wait(io.waitScope);
  link.finish().wait(io.waitScope);
  auto& record = link.record();
  ASSERT_FALSE(record.fault.has_value()) << record.fault->reason;
  ASSERT_EQ(record.autoReplies.size(), 1u);
  EXPECT_EQ(record.autoReplies[0].query, "DSR-cursor");
  EXPECT_EQ(record.autoReplies[0].reply, "\x1b[1;3R");
  ASSERT_FALSE(record.rendered.empty());
  EXPECT_EQ(record.rendered.size(), record.output.size());  // one per accepted chunk
  auto& last = record.rendered.back();
  EXPECT_EQ(last.columns, 10);
  EXPECT_EQ(last.rows, 3);
  EXPECT_EQ(last.lines, (std::vector<std::string>{"ab        ", "ok        ", "          "}));
  EXPECT_EQ(last.cursorX, 2);
  EXPECT_EQ(last.cursorY, 1);
  size_t outputBytes = 0;
  for (const auto& chunk : record.output)
    outputBytes += chunk.data.size();
  EXPECT_EQ(last.bytesBefore, outputBytes);
  EXPECT_FALSE(record.renderTruncated);
  for (size_t i = 1; i < record.rendered.size(); ++i)
    EXPECT_GE(record.rendered[i].atNs, record.rendered[i - 1].atNs);
}

TEST(PtyLink, StopsAHelperWhoseRenderedFramesBreakTheirShape) {
  struct Case {
    const char* mode;
    const char* rule;
  };
  for (auto c : {Case{"/fake/rendered-size", "a rendered frame size out of range"},
                 Case{"/fake/rendered-cursor", "a rendered cursor off the screen"},
                 Case{"/fake/rendered-lines", "rendered lines that are not one per row"},
                 Case{"/fake/rendered-utf8", "a rendered line that is not UTF-8"},
                 Case{"/fake/unknown-reply", "a reply to an unknown query"}}) {
    auto fault = runAgainstFakeHelper(c.mode);
    EXPECT_EQ(fault.reason, std::string("the pty helper sent a malformed message (") + c.rule +
                                ") and was stopped")
        << c.mode;
  }
}

}  // namespace
}  // namespace rea::supervisor
