// SamplerLink against the real rea-sampler binary: both modes, the launcher contract (the target
// is born in the capture cgroup), a helper killed mid-capture, and a link dropped before its
// cleanup (rea cancelled). No process carrying the run token and no capture cgroup survives.
#include "supervisor/links/sampler-link.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>
#include <kj/async-io.h>
#include <kj/debug.h>

#include "helpers/common/system/capture-cgroup.h"
#include "helpers/common/system/cgroup-mounts.h"
#include "helpers/common/system/ownership.h"
#include "helpers/sampler/pids-bound.h"
#include "supervisor/run/owned-cleanup.h"
#include "supervisor/run/run-token.h"
#include "tests/unit/system-test-support.h"

namespace rea::supervisor {
namespace {

const char* HELPERS = REA_BINARY_DIR "/bin";

struct Target {
  pid_t pid = 0;
  kj::AutoCloseFd pidfd;
};

Target spawnIn(const std::string& cgroupPath, const std::string& token, const char* script) {
  // What the pty helper does: born in the capture cgroup (when there is one), session leader,
  // the run token in its environment.
  std::string tokenEntry = "REA_PROCESS_RUN_ID=" + token;
  char* argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), const_cast<char*>(script),
                  nullptr};
  char* envp[] = {const_cast<char*>("PATH=/usr/bin:/bin"), tokenEntry.data(), nullptr};
  int pidfd = -1;
  pid_t pid;
  if (!cgroupPath.empty()) {
    kj::AutoCloseFd dir(open(cgroupPath.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    KJ_ASSERT(dir.get() >= 0);
    pid = helper::cloneIntoCgroup(dir.get(), &pidfd);
  } else {
    pid = fork();
    KJ_ASSERT(pid >= 0);
  }
  if (pid == 0) {
    setsid();
    execve(argv[0], argv, envp);
    _exit(127);
  }
  if (pidfd < 0) pidfd = int(syscall(SYS_pidfd_open, pid, 0));
  // Until it has exec'd the child still has our environment (no token): wait for the exec, as
  // the pty helper's root has long exec'd when anything is cleaned up.
  for (int i = 0; i < 200 && helper::checkRunToken(pid, token) != helper::Ownership::OWNED; ++i)
    usleep(5000);
  return Target{pid, kj::AutoCloseFd(pidfd)};
}

void waitForExit(kj::AsyncIoContext& io, Target& target) {
  kj::UnixEventPort::FdObserver exited(io.unixEventPort, target.pidfd.get(),
                                       kj::UnixEventPort::FdObserver::OBSERVE_READ);
  exited.whenBecomesReadable().wait(io.waitScope);
  waitpid(target.pid, nullptr, 0);
}

pid_t samplerHelperPid() {
  // The rea-sampler child of this process (found by its comm, among our own children only).
  std::ifstream children("/proc/self/task/" + std::to_string(getpid()) + "/children");
  pid_t pid;
  while (children >> pid) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name == "rea-sampler") return pid;
  }
  return 0;
}

void expectNothingLeft(const std::string& token, const std::string& cgroupPath) {
  for (int i = 0; i < 100 && !helper::findTokenCarriers(token).empty(); ++i)
    usleep(10000);
  EXPECT_TRUE(helper::findTokenCarriers(token).empty()) << "a run-token carrier survived";
  if (!cgroupPath.empty()) {
    struct stat st;
    EXPECT_NE(stat(cgroupPath.c_str(), &st), 0) << "capture cgroup left behind: " << cgroupPath;
  }
}

struct SamplerLinkFixture {
  SamplerLinkFixture() {
    // Orphans (the double-forked daemons) are reparented to us and reaped, not left as zombies.
    helper::testing::adoptOrphans();
  }
  ~SamplerLinkFixture() noexcept(false) {
    // Every child, orphans included, is reaped before the next test of this program runs: one
    // killed by the cleanup may still be dying when the test ends, and a later test that checks
    // it left no child of its own (PtyLink's) would find it.
    helper::testing::reapChildren();
    EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1) << "a child of the test outlived it";
    prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
  kj::AsyncIoContext io = kj::setupAsyncIo();
  std::string token = newRunToken();
};

TEST(SamplerLink, RecordsForkExecAndExitAndCleansUpADaemonInExactMode) {
  SamplerLinkFixture fixture;
  auto& io = fixture.io;
  auto& token = fixture.token;
  SamplerLink link(io, HELPERS);
  auto prepared = link.prepare({token, 1000, false}).wait(io.waitScope);
  if (!prepared.exact) GTEST_SKIP() << "no exact observation here: " << prepared.sampledReason;
  ASSERT_FALSE(prepared.cgroupPath.empty());
  auto target = spawnIn(prepared.cgroupPath, token, "/bin/true; (setsid sleep 30 &); sleep 0.1");
  link.start(target.pid);
  waitForExit(io, target);
  auto settlement = link.settle(300).wait(io.waitScope);
  ASSERT_TRUE(settlement);
  EXPECT_EQ(settlement->state, SamplerSettlement::State::ALIVE_AT_DEADLINE);
  link.stop().wait(io.waitScope);
  auto cleanup = link.cleanup().wait(io.waitScope);
  EXPECT_TRUE(cleanup.complete) << cleanup.problem;
  EXPECT_FALSE(cleanup.byFallback);
  ASSERT_EQ(cleanup.escapees.size(), 1u);
  EXPECT_EQ(cleanup.escapees[0].escape, EscapedProcess::Escape::NEW_SESSION);
  const auto& record = link.record();
  EXPECT_FALSE(record.fault) << record.fault->reason;
  EXPECT_TRUE(record.streamDone);
  bool sawTrue = false, sawDaemon = false, sawEmpty = false;
  for (const auto& row : record.samples) {
    // "[true]": it exited before its argv was read (sampler-observer-test.c++ has the detail).
    sawTrue |= row.command == "/bin/true" || row.command == "[true]";
    sawDaemon |= row.command == "sleep 30" && row.sessionId == row.pid;
    sawEmpty |= row.command.empty();  // A15: exits are no rows
  }
  EXPECT_TRUE(sawTrue || record.unreadCommands > 0) << "a lost command is counted";
  EXPECT_FALSE(record.partial);
  EXPECT_TRUE(sawDaemon);
  EXPECT_FALSE(sawEmpty);
  expectNothingLeft(token, prepared.cgroupPath);
}

TEST(SamplerLink, SettlesAtOnceWhenTheGroupIsEmptyInExactMode) {
  SamplerLinkFixture fixture;
  auto& io = fixture.io;
  auto& token = fixture.token;
  SamplerLink link(io, HELPERS);
  auto prepared = link.prepare({token, 1000, false}).wait(io.waitScope);
  if (!prepared.exact) GTEST_SKIP() << "no exact observation here: " << prepared.sampledReason;
  auto target = spawnIn(prepared.cgroupPath, token, "exec /bin/true");
  link.start(target.pid);
  waitForExit(io, target);
  auto settlement = link.settle(5000).wait(io.waitScope);
  ASSERT_TRUE(settlement);
  EXPECT_EQ(settlement->state, SamplerSettlement::State::QUIESCED);
  EXPECT_LT(settlement->elapsedMs, 5000);  // not the deadline: emptiness ends it
  link.stop().wait(io.waitScope);
  auto cleanup = link.cleanup().wait(io.waitScope);
  EXPECT_TRUE(cleanup.complete) << cleanup.problem;
  expectNothingLeft(token, prepared.cgroupPath);
}

TEST(SamplerLink, ATargetThatExitsBeforeStartArrivesIsStillRecordedInExactMode) {
  // The launcher's start() travels through the supervisor; a quick target has long exec'd,
  // exited and been reaped by then. Exact mode identifies the root by its birth in the cgroup.
  SamplerLinkFixture fixture;
  auto& io = fixture.io;
  auto& token = fixture.token;
  SamplerLink link(io, HELPERS);
  auto prepared = link.prepare({token, 1000, false}).wait(io.waitScope);
  if (!prepared.exact) GTEST_SKIP() << "no exact observation here: " << prepared.sampledReason;
  auto target = spawnIn(prepared.cgroupPath, token, "exec /bin/echo quick");
  waitForExit(io, target);
  link.start(target.pid);
  ASSERT_TRUE(link.settle(1000).wait(io.waitScope));
  link.stop().wait(io.waitScope);
  auto cleanup = link.cleanup().wait(io.waitScope);
  EXPECT_TRUE(cleanup.complete) << cleanup.problem;
  const auto& record = link.record();
  std::string rows;
  for (const auto& row : record.samples)
    rows += std::to_string(row.pid) + " " + std::to_string(row.parentPid) + " '" + row.command +
            "' " + std::to_string(row.processGroupId.value_or(-1)) + "\n";
  // The shell's exec and the exec of echo (both in the root); its exit is no row (A15). An exec row
  // names the program by argv or, if it had already exited, by name ("[echo]"); one read too
  // late (reaped, or already replaced by the next exec) is missing and counted as unread.
  ASSERT_LE(record.samples.size(), 2u) << rows;
  for (const auto& row : record.samples)
    EXPECT_EQ(row.pid, target.pid);
  auto isShell = [](const std::string& c) {
    return c == "/bin/sh -c exec /bin/echo quick" || c == "[sh]";
  };
  auto isEcho = [](const std::string& c) { return c == "/bin/echo quick" || c == "[echo]"; };
  size_t execs = record.samples.size();
  EXPECT_FALSE(record.partial);
  EXPECT_EQ(execs + record.unreadCommands, 2u) << rows;
  if (execs == 2) {
    EXPECT_TRUE(isShell(record.samples[0].command)) << rows;
    EXPECT_TRUE(isEcho(record.samples[1].command)) << rows;
  } else if (execs == 1) {
    EXPECT_TRUE(isShell(record.samples[0].command) || isEcho(record.samples[0].command)) << rows;
  }
  expectNothingLeft(token, prepared.cgroupPath);
}

TEST(SamplerLink, ForcedSamplingUsesNoCgroupAndStillCleansUp) {
  SamplerLinkFixture fixture;
  auto& io = fixture.io;
  auto& token = fixture.token;
  SamplerLink link(io, HELPERS);
  auto prepared = link.prepare({token, 1000, true}).wait(io.waitScope);
  EXPECT_FALSE(prepared.exact);
  EXPECT_TRUE(prepared.cgroupPath.empty());
  EXPECT_EQ(prepared.sampledReason, "sampling forced");
  auto target = spawnIn("", token, "sleep 0.2; sleep 30 & exit 0");
  link.start(target.pid);
  waitForExit(io, target);
  auto settlement = link.settle(200).wait(io.waitScope);
  ASSERT_TRUE(settlement);
  EXPECT_EQ(settlement->state, SamplerSettlement::State::ALIVE_AT_DEADLINE);
  link.stop().wait(io.waitScope);
  auto cleanup = link.cleanup().wait(io.waitScope);
  EXPECT_TRUE(cleanup.complete) << cleanup.problem;
  EXPECT_GE(cleanup.signalledCount, 1u);
  EXPECT_FALSE(link.record().samples.empty());
  expectNothingLeft(token, "");
}

TEST(SamplerLink, AKilledHelperIsAFaultAndTheSupervisorCleansUpItself) {
  SamplerLinkFixture fixture;
  auto& io = fixture.io;
  auto& token = fixture.token;
  SamplerLink link(io, HELPERS);
  auto prepared = link.prepare({token, 1000, false}).wait(io.waitScope);
  auto target = spawnIn(prepared.cgroupPath, token, "(setsid sleep 30 &); sleep 30");
  link.start(target.pid);
  io.provider->getTimer().afterDelay(200 * kj::MILLISECONDS).wait(io.waitScope);
  pid_t helperPid = samplerHelperPid();
  ASSERT_GT(helperPid, 0);
  ASSERT_EQ(kill(helperPid, SIGKILL), 0);
  io.provider->getTimer().afterDelay(100 * kj::MILLISECONDS).wait(io.waitScope);
  auto settlement = link.settle(100).wait(io.waitScope);
  EXPECT_FALSE(settlement);
  link.stop().wait(io.waitScope);
  auto cleanup = link.cleanup().wait(io.waitScope);
  EXPECT_TRUE(cleanup.byFallback);
  EXPECT_TRUE(cleanup.complete) << cleanup.problem;
  const auto& record = link.record();
  ASSERT_TRUE(record.fault);
  EXPECT_NE(record.fault->reason.find("the sampler helper"), std::string::npos)
      << record.fault->reason;
  EXPECT_NE(record.fault->reason.find("signal 9"), std::string::npos) << record.fault->reason;
  waitpid(target.pid, nullptr, 0);
  expectNothingLeft(token, prepared.cgroupPath);
}

TEST(SamplerLink, ADroppedLinkCleansUpWhatTheCaptureOwns) {
  SamplerLinkFixture fixture;
  auto& io = fixture.io;
  auto& token = fixture.token;
  // rea cancelled mid-capture: the capture promise (and with it the link) is dropped.
  std::string cgroupPath;
  {
    SamplerLink link(io, HELPERS);
    auto prepared = link.prepare({token, 1000, false}).wait(io.waitScope);
    cgroupPath = prepared.cgroupPath;
    auto target = spawnIn(prepared.cgroupPath, token, "(setsid sleep 30 &); sleep 30");
    link.start(target.pid);
    io.provider->getTimer().afterDelay(100 * kj::MILLISECONDS).wait(io.waitScope);
  }
  expectNothingLeft(token, cgroupPath);
}

TEST(SamplerLink, AMissingHelperBinaryIsAFaultNotAHang) {
  SamplerLinkFixture fixture;
  auto& io = fixture.io;
  auto& token = fixture.token;
  SamplerLink link(io, "/nonexistent");
  auto prepared = link.prepare({token, 1000, false}).wait(io.waitScope);
  EXPECT_FALSE(prepared.exact);
  EXPECT_TRUE(prepared.cgroupPath.empty());
  auto target = spawnIn("", token, "sleep 30");
  link.start(target.pid);
  EXPECT_FALSE(link.settle(100).wait(io.waitScope));
  link.stop().wait(io.waitScope);
  auto cleanup = link.cleanup().wait(io.waitScope);
  EXPECT_TRUE(cleanup.byFallback);
  EXPECT_TRUE(cleanup.complete) << cleanup.problem;
  EXPECT_TRUE(link.record().fault);
  waitpid(target.pid, nullptr, 0);
  expectNothingLeft(token, "");
}

TEST(CaptureCgroupPath, AcceptsOnlyTheCapturesOwnGroup) {
  std::string token = newRunToken();
  std::string mount;
  KJ_IF_MAYBE (found, helper::findCgroup2Mount()) {
    mount = *found;
  } else {
    GTEST_SKIP() << "no cgroup2 mount";
  }
  EXPECT_TRUE(isCaptureCgroupPath(mount + "/rea-" + token, token));
  EXPECT_TRUE(isCaptureCgroupPath(mount + "/some/parent/rea-" + token, token));
  EXPECT_FALSE(isCaptureCgroupPath(mount + "/rea-" + newRunToken(), token));
  EXPECT_FALSE(isCaptureCgroupPath(mount + "/../rea-" + token, token));
  EXPECT_FALSE(isCaptureCgroupPath("/tmp/rea-" + token, token));
  EXPECT_FALSE(isCaptureCgroupPath("rea-" + token, token));
}

TEST(PidsGroupPath, AcceptsOnlyTheCapturesOwnGroupInTheV1PidsHierarchy) {
  std::string token = newRunToken();
  std::string mount;
  KJ_IF_MAYBE (found, helper::findCgroup1Mount("pids")) {
    mount = *found;
  } else {
    GTEST_SKIP() << "no cgroup v1 pids hierarchy";
  }
  EXPECT_TRUE(isPidsGroupPath(mount + "/rea-" + token, token));
  EXPECT_FALSE(isPidsGroupPath(mount + "/rea-" + newRunToken(), token));
  EXPECT_FALSE(isPidsGroupPath(mount + "/../rea-" + token, token));
  KJ_IF_MAYBE (v2, helper::findCgroup2Mount()) {
    EXPECT_FALSE(isPidsGroupPath(*v2 + "/rea-" + token, token));  // the other hierarchy
  }
  EXPECT_FALSE(isPidsGroupPath("/tmp/rea-" + token, token));
}

}  // namespace
}  // namespace rea::supervisor
