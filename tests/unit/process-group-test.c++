#include "supervisor/process-group.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

// Starts `sleep 30` in a new process group (pgid = its pid), with the given token in its
// environment (or none), and returns its pid.
pid_t spawnSleeper(const char* token, pid_t joinGroup = 0) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, joinGroup);
    std::string var = std::string("REA_PROCESS_RUN_ID=") + (token ? token : "");
    char* envp[] = {token ? var.data() : nullptr, nullptr};
    execle("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr), envp);
    _exit(127);
  }
  setpgid(pid, joinGroup);  // both sides, so there is no race with the observation below
  usleep(50000);            // let exec replace the forked image (environ changes at exec)
  return pid;
}

void reap(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(ProcessGroup, AnEmptyGroupIsEmpty) {
  EXPECT_EQ(observeGroup(999999, "tok").state, GroupObservation::State::EMPTY);
}

TEST(ProcessGroup, OwnedMembersAreAliveAndCleanedUp) {
  pid_t pid = spawnSleeper("tok-1");
  auto observation = observeGroup(pid, "tok-1");
  EXPECT_EQ(observation.state, GroupObservation::State::ALIVE);
  ASSERT_EQ(observation.members.size(), 1u);
  EXPECT_TRUE(observation.members[0].owned);

  auto cleanup = cleanupOwnedGroup(pid, "tok-1");
  EXPECT_TRUE(cleanup.complete);
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_EQ(observeGroup(pid, "tok-1").state, GroupObservation::State::EMPTY);
}

TEST(ProcessGroup, AForeignMemberIsReportedAndNeverSignalled) {
  pid_t leader = spawnSleeper("tok-2");
  pid_t foreign = spawnSleeper("another-token", leader);
  auto observation = observeGroup(leader, "tok-2");
  EXPECT_EQ(observation.state, GroupObservation::State::UNVERIFIABLE);

  auto cleanup = cleanupOwnedGroup(leader, "tok-2");
  EXPECT_FALSE(cleanup.complete);
  ASSERT_EQ(cleanup.unowned.size(), 1u);
  EXPECT_EQ(cleanup.unowned[0], foreign);
  EXPECT_EQ(kill(foreign, 0), 0) << "the foreign process must still be alive";
  reap(foreign);
  waitpid(leader, nullptr, 0);
}

TEST(ProcessGroup, ZombiesAreIgnored) {
  pid_t pid = spawnSleeper("tok-3");
  kill(pid, SIGKILL);
  usleep(50000);  // now a zombie until we reap it
  EXPECT_EQ(observeGroup(pid, "tok-3").state, GroupObservation::State::EMPTY);
  EXPECT_TRUE(cleanupOwnedGroup(pid, "tok-3").complete);
  waitpid(pid, nullptr, 0);
}

TEST(ProcessGroup, ChecksTheTokenExactly) {
  pid_t pid = spawnSleeper("tok-44");
  EXPECT_EQ(checkRunToken(pid, "tok-44"), TokenCheck::OWNED);
  EXPECT_EQ(checkRunToken(pid, "tok-4"), TokenCheck::FOREIGN);
  EXPECT_EQ(checkRunToken(pid, "tok-444"), TokenCheck::FOREIGN);
  reap(pid);
  EXPECT_EQ(checkRunToken(pid, "tok-44"), TokenCheck::GONE);
}

}  // namespace
}  // namespace rea::supervisor
