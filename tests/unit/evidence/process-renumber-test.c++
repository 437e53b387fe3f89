#include "evidence/process-renumber.h"

#include <gtest/gtest.h>

namespace rea::evidence {
namespace {

TEST(ProcessRenumber, NumbersIdsByFirstAppearanceStartingWithTheRoot) {
  std::vector<RawProcessSample> raw = {
      {3, 500, 400, 500, 500, "sh"},
      {17, 501, 500, 500, 500, "sleep 1"},
      {25, 500, 400, 500, 500, "sh"},
  };
  NormaliseContext context;
  auto samples = renumberProcessSamples(raw, 500, context, 10);
  ASSERT_EQ(samples.size(), 3u);
  // Root 500 -> 1, its parent 400 (the harness) -> 2, child 501 -> 3.
  EXPECT_EQ(samples[0].pid, 1);
  EXPECT_EQ(samples[0].parentPid, 2);
  EXPECT_EQ(samples[0].processGroupId, 1);
  EXPECT_EQ(samples[0].sessionId, 1);
  EXPECT_EQ(samples[1].pid, 3);
  EXPECT_EQ(samples[1].parentPid, 1);
  EXPECT_EQ(samples[2].pid, 1);
  EXPECT_EQ(samples[0].atMs, 0);
  EXPECT_EQ(samples[1].atMs, 10);
  EXPECT_EQ(samples[2].atMs, 20);
}

TEST(ProcessRenumber, AppliesFallbacksAndKeepsNullGroups) {
  std::vector<RawProcessSample> raw = {
      {-5, 0, -1, std::nullopt, 0, "x"},
      {0, 77, 0, 0, std::nullopt, "y"},
  };
  auto samples = renumberProcessSamples(raw, 9, NormaliseContext{}, 10);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].atMs, 0);
  EXPECT_EQ(samples[0].pid, 1);
  EXPECT_EQ(samples[0].parentPid, 0);
  EXPECT_EQ(samples[0].processGroupId, std::nullopt);
  EXPECT_EQ(samples[0].sessionId, 0);
  EXPECT_EQ(samples[1].pid, 2);  // the root 9 took 1 although it never appears in a sample
  EXPECT_EQ(samples[1].processGroupId, 0);
  EXPECT_EQ(samples[1].sessionId, std::nullopt);
}

TEST(ProcessRenumber, ReplacesEveryListedIdInCommandsUnderA5Ports) {
  // B's example turned `--parent=400` into `--parent=<port>` because B's port step matched
  // digits after `=`. A5 only replaces ports in host:port contexts, so the second pass now makes
  // the listed id 400 `<pid>`.
  std::vector<RawProcessSample> raw = {
      {0, 500, 400, 500, 500, "worker --parent=400 --root=500 --n=4000 localhost:8080"},
  };
  NormaliseContext context;
  auto samples = renumberProcessSamples(raw, 500, context, 10);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].command, "worker --parent=<pid> --root=<pid> --n=4000 localhost:<port>");
}

TEST(ProcessRenumber, NormalisesCommandsWithThePlaceholderTemporaryRoot) {
  std::vector<RawProcessSample> raw = {
      {0, 500, 400, 500, 500, "  /tmp/rea-1/shims/git status in /proj  "},
  };
  NormaliseContext context;
  context.temporaryRoot = "/tmp/rea-1";
  context.workingDirectory = "/proj";
  context.secrets = {"status"};
  context.pids = {12345};  // ignored: the root pid is the only pid of the first pass
  auto samples = renumberProcessSamples(raw, 500, context, 10);
  ASSERT_EQ(samples.size(), 1u);
  // Not trimmed; the temp root stays raw (B §4.6.1 table, quirk 5).
  EXPECT_EQ(samples[0].command, "  /tmp/rea-1/shims/git <redacted> in <working-directory>  ");
}

TEST(ProcessRenumber, LeavesIdsInCommandsWhenPidsAreOff) {
  std::vector<RawProcessSample> raw = {{0, 500, 400, 500, 500, "kill 400 500"}};
  NormaliseContext context;
  context.normalisePids = false;
  auto samples = renumberProcessSamples(raw, 500, context, 10);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].command, "kill 400 500");
  EXPECT_EQ(samples[0].parentPid, 2);
}

}  // namespace
}  // namespace rea::evidence
