// rea itself killed with SIGKILL mid-capture (issue "Reliability"): nothing can run its cleanup,
// yet the target tree dies with it (helpers and target are tied to the supervisor's lifetime),
// and the next capture removes the temporary root the killed one left behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/integration/harness.h"

namespace rea::test {
namespace {

Json longScenario() {
  return Json{{"approved", true},
              {"executable", "/bin/sh"},
              {"arguments", {"-c", "echo started; sleep 30"}},
              {"working_directory", "/tmp"},
              {"environment", {{"PATH", "/usr/bin:/bin"}}},
              {"timeout_ms", 60000}};
}

TEST(KilledRea, TheTargetDiesAndTheNextCaptureRemovesTheStaleRoot) {
  Sandbox sandbox;
  auto killed = sandbox.capture(longScenario(), {}, {}, /*signalAfterMs=*/1500, SIGKILL);
  EXPECT_EQ(killed.exitCode, 128 + SIGKILL);
  EXPECT_TRUE(killed.stdoutText.empty()) << "no half-written output: " << killed.stdoutText;

  // The target (sh and its sleep) dies with the helpers; give the kernel a moment.
  std::vector<int> left;
  for (int i = 0; i < 50; ++i) {
    left = sandbox.leftoverProcesses();
    if (left.empty()) break;
    usleep(100 * 1000);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " target processes survived rea";
  ASSERT_EQ(sandbox.leftoverTempRoots().size(), 1u) << "the killed capture's root stays...";

  sleep(3);  // a root younger than two seconds may be a concurrent capture's: never touched
  Json quick = longScenario();
  quick["arguments"] = {"-c", "echo again"};
  auto next = sandbox.capture(quick);
  EXPECT_EQ(next.exitCode, 0) << next.stdoutText;
  EXPECT_TRUE(sandbox.leftoverTempRoots().empty()) << "...until the next capture removes it";
}

}  // namespace
}  // namespace rea::test
