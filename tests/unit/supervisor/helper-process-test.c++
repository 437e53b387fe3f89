// HelperProcess with stand-in helpers (/bin/sh scripts): fds, classification, stop order.
#include "supervisor/links/helper-process.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

namespace rea::supervisor {
namespace {

kj::Own<HelperProcess> spawnShell(kj::AsyncIoContext& io, const char* script) {
  kj::StringPtr args[] = {"-c", script};
  return HelperProcess::spawn(io, "test", "/bin/sh", args);
}

void expectNoChildrenLeft() {
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

// For helpers that end "after ready": they wait for a line on fd 3, sent once markReady() was
// called. spawn() returns after the exec (vfork semantics), so a script ending at once could be
// reaped before markReady() and rightly count as died-before-ready.
kj::Own<kj::AsyncIoStream> readyThenGo(kj::AsyncIoContext& io, HelperProcess& helper) {
  helper.markReady();
  auto connection = helper.takeConnection();
  connection->write("go\n", 3).wait(io.waitScope);
  return connection;
}

TEST(HelperProcess, ReportsAnExitStatusAfterReady) {
  auto io = kj::setupAsyncIo();
  auto helper = spawnShell(io, "read -r line <&3; exit 3");
  auto connection = readyThenGo(io, *helper);
  auto end = helper->whenEnded().wait(io.waitScope);
  EXPECT_EQ(end.kind, HelperEnd::Kind::EXITED);
  EXPECT_EQ(end.code, 3);
  EXPECT_EQ(end.describe(), "exited with status 3");
  EXPECT_TRUE(helper->end() != nullptr);
  expectNoChildrenLeft();
}

TEST(HelperProcess, AnEndBeforeReadyIsDiedBeforeReady) {
  auto io = kj::setupAsyncIo();
  auto helper = spawnShell(io, "exit 0");
  auto end = helper->whenEnded().wait(io.waitScope);
  EXPECT_EQ(end.kind, HelperEnd::Kind::DIED_BEFORE_READY);
  EXPECT_EQ(end.describe(),
            "died before it was ready (exit status 0), usually a policy or setup bug");
}

TEST(HelperProcess, AMissingBinaryExits127BeforeReady) {
  auto io = kj::setupAsyncIo();
  auto helper = HelperProcess::spawn(io, "test", "/nonexistent/rea-none", nullptr);
  auto end = helper->whenEnded().wait(io.waitScope);
  EXPECT_EQ(end.kind, HelperEnd::Kind::DIED_BEFORE_READY);
  EXPECT_EQ(end.code, 127);
}

TEST(HelperProcess, SigsysIsASeccompKill) {
  auto io = kj::setupAsyncIo();
  auto helper = spawnShell(io, "read -r line <&3; kill -SYS $$");
  auto connection = readyThenGo(io, *helper);
  auto end = helper->whenEnded().wait(io.waitScope);
  EXPECT_EQ(end.kind, HelperEnd::Kind::SECCOMP_KILL);
  EXPECT_EQ(end.signal, SIGSYS);
  EXPECT_STREQ(helperEndKindName(end.kind), "seccomp_kill");
}

TEST(HelperProcess, ASignalWeDidNotSendIsACrash) {
  auto io = kj::setupAsyncIo();
  auto helper = spawnShell(io, "read -r line <&3; kill -SEGV $$");
  auto connection = readyThenGo(io, *helper);
  auto end = helper->whenEnded().wait(io.waitScope);
  EXPECT_EQ(end.kind, HelperEnd::Kind::CRASHED);
  EXPECT_EQ(end.signal, SIGSEGV);
  EXPECT_EQ(end.describe(), "crashed with signal 11 (SIGSEGV)");
}

TEST(HelperProcess, StopKillsAHelperThatDoesNotExitAfterTheGrace) {
  auto io = kj::setupAsyncIo();
  auto helper = spawnShell(io, "exec sleep 30");
  helper->markReady();
  pid_t pid = helper->pid();
  helper->takeConnection();  // dropped at once
  auto end = helper->stop(50 * kj::MILLISECONDS).wait(io.waitScope);
  EXPECT_EQ(end.kind, HelperEnd::Kind::STOPPED_BY_US);
  EXPECT_EQ(end.signal, SIGKILL);
  EXPECT_EQ(::kill(pid, 0), -1);
  expectNoChildrenLeft();
}

TEST(HelperProcess, AHelperLeavingWhenItsConnectionDropsIsStoppedByUs) {
  auto io = kj::setupAsyncIo();
  // Reads fd 3 until EOF, then exits 0: what every real helper does.
  auto helper = spawnShell(io, "cat <&3 >/dev/null; exit 0");
  helper->markReady();
  helper->takeConnection() = nullptr;
  auto end = helper->stop(30 * kj::SECONDS).wait(io.waitScope);
  EXPECT_EQ(end.kind, HelperEnd::Kind::STOPPED_BY_US);
  EXPECT_EQ(end.code, 0);
  EXPECT_EQ(end.signal, 0);
}

TEST(HelperProcess, TheChildGetsFdThreeAndAMinimalEnvironment) {
  auto io = kj::setupAsyncIo();
  setenv("REA_HELPER_PROCESS_TEST_SECRET", "leak", 1);
  auto helper = spawnShell(io, "cd /proc/self/fd && echo fds: * >&3; env >&3");
  unsetenv("REA_HELPER_PROCESS_TEST_SECRET");
  helper->markReady();
  auto connection = helper->takeConnection();
  auto text = connection->readAllText().wait(io.waitScope);
  // The shell's own directory fd for the glob may appear above 3; nothing else may.
  EXPECT_TRUE(text.startsWith(kj::StringPtr("fds: 0 1 2 3"))) << text.cStr();
  EXPECT_EQ(strstr(text.cStr(), "REA_HELPER_PROCESS_TEST_SECRET"), nullptr) << text.cStr();
  EXPECT_EQ(strstr(text.cStr(), "HOME="), nullptr) << text.cStr();
  helper->whenEnded().wait(io.waitScope);
}

TEST(HelperProcess, DestroyingItKillsAndReapsALiveHelper) {
  auto io = kj::setupAsyncIo();
  auto helper = spawnShell(io, "exec sleep 30");
  pid_t pid = helper->pid();
  helper = nullptr;
  EXPECT_EQ(::kill(pid, 0), -1);
  expectNoChildrenLeft();
}

TEST(HelperProcess, HelperDirectoryComesFromTheEnvironmentOrOurOwnBinary) {
  setenv("REA_HELPER_DIR", "/opt/rea-helpers", 1);
  EXPECT_EQ(defaultHelperDirectory(), "/opt/rea-helpers");
  unsetenv("REA_HELPER_DIR");
  EXPECT_EQ(defaultHelperDirectory(), std::string(REA_BINARY_DIR) + "/bin");
}

}  // namespace
}  // namespace rea::supervisor
