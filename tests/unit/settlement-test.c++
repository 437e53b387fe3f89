#include "supervisor/settlement.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kj/async-io.h>
#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

pid_t spawnGroupLeader(const char* token, const char* seconds) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    std::string var = std::string("REA_PROCESS_RUN_ID=") + token;
    char* envp[] = {var.data(), nullptr};
    execle("/bin/sleep", "sleep", seconds, static_cast<char*>(nullptr), envp);
    _exit(127);
  }
  setpgid(pid, pid);
  usleep(30000);
  return pid;
}

TEST(Settlement, QuiescesAfterTwoEmptyObservations) {
  auto io = kj::setupAsyncIo();
  auto result =
      observeSettlement(io.provider->getTimer(), {999999}, "tok", 1000).wait(io.waitScope);
  EXPECT_EQ(result.state, SettlementResult::State::QUIESCED);
  EXPECT_GE(result.elapsedMs, 40);  // the second observation comes 50 ms after the first
}

TEST(Settlement, WaitsForAnOwnedMemberToExit) {
  auto io = kj::setupAsyncIo();
  pid_t pid = spawnGroupLeader("tok-s", "0.3");
  auto promise = observeSettlement(io.provider->getTimer(), {pid}, "tok-s", 5000);
  // Reap the sleeper in the background so it does not linger as a zombie (zombies count as
  // gone anyway).
  auto result = promise.wait(io.waitScope);
  waitpid(pid, nullptr, 0);
  EXPECT_EQ(result.state, SettlementResult::State::QUIESCED);
  EXPECT_GE(result.elapsedMs, 200);
}

TEST(Settlement, ReportsAliveAtDeadline) {
  auto io = kj::setupAsyncIo();
  pid_t pid = spawnGroupLeader("tok-d", "30");
  auto result = observeSettlement(io.provider->getTimer(), {pid}, "tok-d", 120).wait(io.waitScope);
  EXPECT_EQ(result.state, SettlementResult::State::ALIVE_AT_DEADLINE);
  EXPECT_GE(result.elapsedMs, 120);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(Settlement, ZeroSettleTimeIsAliveAtDeadlineLikeTheBaseline) {
  auto io = kj::setupAsyncIo();
  auto result = observeSettlement(io.provider->getTimer(), {999999}, "tok", 0).wait(io.waitScope);
  EXPECT_EQ(result.state, SettlementResult::State::ALIVE_AT_DEADLINE);
}

TEST(Settlement, AForeignMemberMakesItUnverifiable) {
  auto io = kj::setupAsyncIo();
  pid_t pid = spawnGroupLeader("someone-else", "30");
  auto result = observeSettlement(io.provider->getTimer(), {pid}, "tok-u", 1000).wait(io.waitScope);
  EXPECT_EQ(result.state, SettlementResult::State::UNVERIFIABLE);
  EXPECT_FALSE(result.problem.empty());
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace
}  // namespace rea::supervisor
