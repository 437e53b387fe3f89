// The observer without a capture cgroup it may make (needs root to drop to `nobody`; the
// capture cgroup itself is tested in tests/unit/system/capture-cgroup-test.c++).

#include "helpers/sampler/process-observer.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "helpers/common/system/cgroup-mounts.h"
#include "tests/unit/sampler-test-support.h"

namespace rea::helper {
namespace {

using testing::freshToken;

TEST(SamplerCgroup, AnObserverWithoutAWritableHierarchySamplesAndSaysWhy) {
  if (findCgroup2Mount() == nullptr) GTEST_SKIP() << "no cgroup2 hierarchy";
  // As `nobody` the hierarchy is read-only: the observer degrades to sampling with a reason.
  pid_t child = fork();
  if (child == 0) {
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(10);
    int code = 0;
    KJ_IF_MAYBE (exception, kj::runCatchingExceptions([&]() {
                   auto io = kj::setupAsyncIo();
                   testing::RecordingSink sink;
                   ProcessObserver observer(ObserverConfig{freshToken(), 1000, false, true},
                                            io.provider->getTimer(), io.unixEventPort, sink);
                   if (observer.mode() != ObservationMode::SAMPLED) code = 11;
                   if (observer.cgroup() != nullptr) code = 12;
                   if (observer.sampledReason().find("cannot create a cgroup under") != 0) {
                     code = 13;
                   }
                 })) {
      code = 14;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace rea::helper
