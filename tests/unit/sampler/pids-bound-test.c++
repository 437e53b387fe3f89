// The capture's bound on live processes (issue 18.7) with a real capture cgroup and real forks
// (needs root and a pids controller; skips otherwise).

#include "helpers/sampler/pids-bound.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/common/system/cgroup-mounts.h"
#include "tests/unit/sampler-test-support.h"

namespace rea::helper {
namespace {

using testing::freshToken;

// In a child: joins `joinPath` (if any), then forks `tries` children that sleep; exits with the
// number of forks that failed. The children die with it (killed by the caller's group kill).
int forkFailures(const std::string& joinPath, CaptureCgroup& group, int tries) {
  pid_t pid = cloneIntoCgroup(group.dirFd());
  if (pid == 0) {
    if (!joinPath.empty()) {
      int procs = open((joinPath + "/cgroup.procs").c_str(), O_WRONLY);
      if (procs < 0 || write(procs, "0", 1) != 1) _exit(100);
      close(procs);
    }
    int failed = 0;
    for (int i = 0; i < tries; ++i) {
      pid_t child = fork();
      if (child == 0) {
        pause();
        _exit(0);
      }
      if (child < 0) ++failed;
    }
    _exit(failed);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A fresh capture cgroup with a bound of `maxPids`, or why this machine cannot have one.
struct BoundGroup {
  std::string token = freshToken();
  kj::Own<CaptureCgroup> group;
  kj::Own<PidsBound> bound;
  std::string whyNot;

  explicit BoundGroup(uint32_t maxPids) {
    auto made = CaptureCgroup::create(token);
    if (made.is<std::string>()) {
      whyNot = made.get<std::string>();
      return;
    }
    group = kj::mv(made.get<kj::Own<CaptureCgroup>>());
    auto applied = PidsBound::apply(group->path(), token, maxPids);
    if (applied.is<std::string>()) {
      whyNot = applied.get<std::string>();
      return;
    }
    bound = kj::mv(applied.get<kj::Own<PidsBound>>());
  }
};

TEST(PidsBound, RefusesForksBeyondTheBoundAndCountsThem) {
  BoundGroup made(4);
  if (made.bound.get() == nullptr) GTEST_SKIP() << made.whyNot;
  auto& group = made.group;
  auto& bound = made.bound;
  EXPECT_EQ(bound->maxPids(), 4u);
  EXPECT_EQ(bound->limitHits(), 0u);
  // The parent counts against the bound: 3 children fit, 3 of 6 forks are refused.
  EXPECT_EQ(forkFailures(bound->joinPath(), *group, 6), 3);
  EXPECT_EQ(bound->limitHits(), 3u);
  group->kill();
  for (int i = 0; i < 200 && !bound->remove(); ++i)
    usleep(10 * 1000);
  EXPECT_TRUE(bound->remove());
  if (!bound->joinPath().empty()) {
    EXPECT_NE(access(bound->joinPath().c_str(), F_OK), 0);
  }
}

TEST(PidsBound, AV1GroupIsNamedAfterTheTokenInThePidsHierarchy) {
  BoundGroup made(10);
  if (made.bound.get() == nullptr) GTEST_SKIP() << made.whyNot;
  const std::string& token = made.token;
  auto& bound = made.bound;
  if (bound->joinPath().empty()) GTEST_SKIP() << "the bound is cgroup v2's here";
  std::string mount = KJ_ASSERT_NONNULL(findCgroup1Mount("pids"));
  EXPECT_EQ(bound->joinPath().rfind(mount + "/", 0), 0u);
  EXPECT_EQ(bound->joinPath().substr(bound->joinPath().size() - token.size() - 4), "rea-" + token);
  auto max = readProcFile(bound->joinPath() + "/pids.max");
  EXPECT_EQ(max.text, "10\n");
  std::string path = bound->joinPath();
  bound = nullptr;  // empty: removed at destruction
  EXPECT_NE(access(path.c_str(), F_OK), 0);
}

}  // namespace
}  // namespace rea::helper
