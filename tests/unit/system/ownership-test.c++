// Ownership verification and PID-reuse safety (B §6.7.1, B §12), with real
// processes. PID reuse is staged for real where the kernel lets a test pick the next pid
// (/proc/sys/kernel/ns_last_pid, root only); otherwise those tests skip.

#include "helpers/common/system/ownership.h"

#include <gtest/gtest.h>

#include "tests/unit/system-test-support.h"

namespace rea::helper {
namespace {

using testing::forkWithPid;
using testing::freshToken;
using testing::isLive;
using testing::reap;
using testing::spawnSleeper;

std::string environ(std::initializer_list<std::string> entries) {
  std::string text;
  for (const auto& entry : entries) {
    text += entry;
    text += '\0';
  }
  return text;
}

TEST(Ownership, ParsesTheEnvironmentAsTheBaselineDoes) {
  EXPECT_EQ(ownershipOfEnviron(environ({"A=1", "REA_PROCESS_RUN_ID=tok", "B=2"}), "tok"),
            Ownership::OWNED);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=tok-1"}), "tok"),
            Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=to"}), "tok"),
            Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=tok=x"}), "tok"),
            Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID"}), "tok"), Ownership::TOKEN_MISSING);
  EXPECT_EQ(ownershipOfEnviron(environ({"=REA_PROCESS_RUN_ID=tok"}), "tok"),
            Ownership::TOKEN_MISSING);
  EXPECT_EQ(ownershipOfEnviron(environ({"XREA_PROCESS_RUN_ID=tok"}), "tok"),
            Ownership::TOKEN_MISSING);
  EXPECT_EQ(ownershipOfEnviron("", "tok"), Ownership::TOKEN_MISSING);
  // A later entry overrides an earlier one, as when the baseline builds its record.
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=tok", "REA_PROCESS_RUN_ID=x"}), "tok"),
            Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(ownershipOfEnviron(environ({"REA_PROCESS_RUN_ID=x", "REA_PROCESS_RUN_ID=tok"}), "tok"),
            Ownership::OWNED);
  // No trailing NUL on the last entry.
  EXPECT_EQ(ownershipOfEnviron("REA_PROCESS_RUN_ID=tok", "tok"), Ownership::OWNED);
}

TEST(Ownership, ChecksLiveZombieAndVanishedProcesses) {
  std::string token = freshToken();
  pid_t owned = spawnSleeper(token.c_str());
  pid_t other = spawnSleeper("someone-else");
  pid_t bare = spawnSleeper(nullptr);
  EXPECT_EQ(checkRunToken(owned, token), Ownership::OWNED);
  EXPECT_EQ(checkRunToken(other, token), Ownership::TOKEN_DIFFERENT);
  EXPECT_EQ(checkRunToken(bare, token), Ownership::TOKEN_MISSING);
  auto carriers = findTokenCarriers(token);
  ASSERT_EQ(carriers.size(), 1u);
  EXPECT_EQ(carriers[0], owned);

  kill(owned, SIGKILL);
  siginfo_t info{};
  waitid(P_PID, owned, &info, WEXITED | WNOWAIT);  // a zombie now
  EXPECT_EQ(checkRunToken(owned, token), Ownership::GONE);
  EXPECT_EQ(inspectProcess(owned, token).getOwnership(), Ownership::GONE);
  EXPECT_TRUE(findTokenCarriers(token).empty());
  waitpid(owned, nullptr, 0);
  EXPECT_EQ(checkRunToken(owned, token), Ownership::GONE);
  reap(other);
  reap(bare);
}

TEST(Ownership, OnlyVerifiedProcessesCanBeSignalled) {
  pid_t other = spawnSleeper("someone-else");
  auto inspected = inspectProcess(other, "mine");
  EXPECT_EQ(inspected.getOwnership(), Ownership::TOKEN_DIFFERENT);
  kj::Maybe<kj::Exception> failure = kj::runCatchingExceptions([&]() { inspected.kill(); });
  EXPECT_TRUE(failure != nullptr);
  EXPECT_TRUE(isLive(other));
  reap(other);
}

TEST(Ownership, AnInspectedProcessNeverSignalsTheProcessThatRecycledItsPid) {
  std::string token = freshToken();
  pid_t original = spawnSleeper(token.c_str());
  auto inspected = inspectProcess(original, token);
  ASSERT_EQ(inspected.getOwnership(), Ownership::OWNED);
  reap(original);  // gone behind the sampler's back; its pid is free again

  pid_t stranger = forkWithPid(original, []() {
    char env[] = "REA_PROCESS_RUN_ID=someone-else";
    char* envp[] = {env, nullptr};
    execle("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr), envp);
  });
  if (stranger < 0) GTEST_SKIP() << "could not stage PID reuse on this machine";
  ASSERT_EQ(stranger, original);
  EXPECT_FALSE(inspected.kill()) << "the pidfd names the dead process, not the stranger";
  EXPECT_TRUE(isLive(stranger));
  reap(stranger);
}

}  // namespace
}  // namespace rea::helper
