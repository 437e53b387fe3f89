// Shard selection and detection of `rea capture-batch` (issue 21): exhaustive over small corpora
// and shard counts, and every engine's environment convention.

#include "evidence/batch-shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace rea::evidence {
namespace {

using Environment = std::map<std::string, std::string>;

ShardDetection detect(const Environment& env) {
  return detectShard([&env](const char* name) -> std::optional<std::string> {
    auto found = env.find(name);
    if (found == env.end()) return std::nullopt;
    return found->second;
  });
}

std::vector<std::string> ids(size_t count) {
  std::vector<std::string> out;
  // Listed in an order unlike the sorted one, so the test sees that selection sorts.
  for (size_t i = count; i-- > 0;)
    out.push_back("s" + std::to_string(i * 7919 % 1009));
  return out;
}

TEST(BatchShard, ShardsArePairwiseDisjointCoverEveryIdAndDifferInSizeByAtMostOne) {
  for (size_t size = 0; size <= 40; ++size) {
    auto all = ids(size);
    std::vector<std::string> sorted = all;
    std::sort(sorted.begin(), sorted.end());
    for (uint64_t count = 1; count <= 12; ++count) {
      std::multiset<std::string> seen;
      size_t smallest = SIZE_MAX, largest = 0;
      for (uint64_t index = 0; index < count; ++index) {
        auto share = selectShard(all, Shard{index, count});
        EXPECT_TRUE(std::is_sorted(share.begin(), share.end()));
        seen.insert(share.begin(), share.end());
        smallest = std::min(smallest, share.size());
        largest = std::max(largest, share.size());
      }
      EXPECT_EQ(std::vector<std::string>(seen.begin(), seen.end()), sorted)
          << size << " ids in " << count << " shards";
      EXPECT_LE(largest - smallest, 1u) << size << " ids in " << count << " shards";
    }
  }
}

TEST(BatchShard, SelectionDependsOnTheSetOfIdsNotTheirOrder) {
  std::vector<std::string> a = {"c", "a", "d", "b", "e"};
  std::vector<std::string> b = {"e", "d", "c", "b", "a"};
  for (uint64_t index = 0; index < 2; ++index) {
    EXPECT_EQ(selectShard(a, Shard{index, 2}), selectShard(b, Shard{index, 2}));
  }
  EXPECT_EQ(selectShard(a, Shard{0, 2}), (std::vector<std::string>{"a", "c", "e"}));
  EXPECT_EQ(selectShard(a, Shard{1, 2}), (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(selectShard(a, Shard{0, 1}), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
}

TEST(BatchShard, ParsesIndexSlashCountCountingFromZero) {
  EXPECT_EQ(parseShard("0/1").shard, (Shard{0, 1}));
  EXPECT_EQ(parseShard("3/4").shard, (Shard{3, 4}));
  EXPECT_EQ(parseShard("999999/1000000").shard, (Shard{999999, 1000000}));
  for (const char* bad : {"", "1", "4/4", "5/4", "0/0", "-1/4", "1/-4", "1 /4", "+1/4", "1/4/5",
                          "a/4", "1/", "/4", "0/1000001", "0x1/4"}) {
    auto parsed = parseShard(bad);
    EXPECT_FALSE(parsed.shard.has_value()) << bad;
    EXPECT_FALSE(parsed.problem.empty()) << bad;
  }
}

TEST(BatchShard, NoEngineVariablesMeansOneWorker) {
  auto none = detect({});
  EXPECT_FALSE(none.shard.has_value());
  EXPECT_TRUE(none.problem.empty());
  // An empty value counts as unset (a CI matrix variable left blank).
  EXPECT_FALSE(detect({{"REA_SHARD", ""}, {"SLURM_ARRAY_TASK_ID", ""}}).shard.has_value());
  // Slurm variables of a job that is not an array do not make a shard.
  EXPECT_FALSE(detect({{"SLURM_JOB_ID", "12"}, {"SLURM_PROCID", "0"}}).shard.has_value());
}

TEST(BatchShard, DetectsTheGenericAndTestRunnerConventions) {
  auto generic = detect({{"REA_SHARD", "2/5"}});
  EXPECT_EQ(generic.shard, (Shard{2, 5}));
  EXPECT_EQ(generic.source, "REA_SHARD");
  auto runner = detect({{"TEST_SHARD_INDEX", "1"}, {"TEST_TOTAL_SHARDS", "3"}});
  EXPECT_EQ(runner.shard, (Shard{1, 3}));
  EXPECT_EQ(runner.source, "TEST_SHARD_INDEX");
  // The generic form wins over the others.
  EXPECT_EQ(
      detect({{"REA_SHARD", "0/2"}, {"TEST_SHARD_INDEX", "1"}, {"TEST_TOTAL_SHARDS", "3"}}).shard,
      (Shard{0, 2}));
}

TEST(BatchShard, DetectsSlurmArrayTasksByTheirPositionInTheRange) {
  // sbatch --array=0-3: task 2 of 4.
  EXPECT_EQ(detect({{"SLURM_ARRAY_TASK_ID", "2"},
                    {"SLURM_ARRAY_TASK_MIN", "0"},
                    {"SLURM_ARRAY_TASK_MAX", "3"},
                    {"SLURM_ARRAY_TASK_COUNT", "4"}})
                .shard,
            (Shard{2, 4}));
  // --array=1-4: numbered from 1; the first task is shard 0.
  EXPECT_EQ(detect({{"SLURM_ARRAY_TASK_ID", "1"},
                    {"SLURM_ARRAY_TASK_MIN", "1"},
                    {"SLURM_ARRAY_TASK_MAX", "4"}})
                .shard,
            (Shard{0, 4}));
  // --array=10-40:10 — four tasks, 30 is the third.
  auto stepped = detect({{"SLURM_ARRAY_TASK_ID", "30"},
                         {"SLURM_ARRAY_TASK_MIN", "10"},
                         {"SLURM_ARRAY_TASK_MAX", "40"},
                         {"SLURM_ARRAY_TASK_STEP", "10"},
                         {"SLURM_ARRAY_TASK_COUNT", "4"}});
  EXPECT_EQ(stepped.shard, (Shard{2, 4}));
  EXPECT_EQ(stepped.source, "SLURM_ARRAY_TASK_ID");
  // Only the count (older Slurm without MAX in the environment of some launchers).
  EXPECT_EQ(detect({{"SLURM_ARRAY_TASK_ID", "5"},
                    {"SLURM_ARRAY_TASK_MIN", "0"},
                    {"SLURM_ARRAY_TASK_COUNT", "8"}})
                .shard,
            (Shard{5, 8}));
}

TEST(BatchShard, RefusesSlurmArraysThatAreNotOneRange) {
  // --array=1,4,9: three tasks but a span of nine.
  auto list = detect({{"SLURM_ARRAY_TASK_ID", "4"},
                      {"SLURM_ARRAY_TASK_MIN", "1"},
                      {"SLURM_ARRAY_TASK_MAX", "9"},
                      {"SLURM_ARRAY_TASK_COUNT", "3"}});
  EXPECT_FALSE(list.shard.has_value());
  EXPECT_NE(list.problem.find("--array=0-(N-1)"), std::string::npos) << list.problem;
  for (const Environment& env : std::vector<Environment>{
           {{"SLURM_ARRAY_TASK_ID", "3"}},
           {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "0"}},
           {{"SLURM_ARRAY_TASK_ID", "x"},
            {"SLURM_ARRAY_TASK_MIN", "0"},
            {"SLURM_ARRAY_TASK_COUNT", "4"}},
           {{"SLURM_ARRAY_TASK_ID", "1"},
            {"SLURM_ARRAY_TASK_MIN", "2"},
            {"SLURM_ARRAY_TASK_COUNT", "4"}},
           {{"SLURM_ARRAY_TASK_ID", "4"},
            {"SLURM_ARRAY_TASK_MIN", "0"},
            {"SLURM_ARRAY_TASK_COUNT", "4"}},
           {{"SLURM_ARRAY_TASK_ID", "5"},
            {"SLURM_ARRAY_TASK_MIN", "0"},
            {"SLURM_ARRAY_TASK_STEP", "2"},
            {"SLURM_ARRAY_TASK_COUNT", "4"}},
           {{"SLURM_ARRAY_TASK_ID", "0"},
            {"SLURM_ARRAY_TASK_MIN", "0"},
            {"SLURM_ARRAY_TASK_STEP", "0"},
            {"SLURM_ARRAY_TASK_COUNT", "4"}},
       }) {
    auto detected = detect(env);
    EXPECT_FALSE(detected.shard.has_value()) << env.size();
    EXPECT_FALSE(detected.problem.empty()) << env.size();
    EXPECT_EQ(detected.source, "SLURM_ARRAY_TASK_ID");
  }
}

TEST(BatchShard, DetectsKubernetesIndexedJobsWithTheCountTheManifestSets) {
  auto pod = detect({{"JOB_COMPLETION_INDEX", "3"}, {"REA_SHARD_COUNT", "8"}});
  EXPECT_EQ(pod.shard, (Shard{3, 8}));
  EXPECT_EQ(pod.source, "JOB_COMPLETION_INDEX");
  // Without the count a pod would otherwise capture everything: a problem, not one worker.
  auto alone = detect({{"JOB_COMPLETION_INDEX", "3"}});
  EXPECT_FALSE(alone.shard.has_value());
  EXPECT_NE(alone.problem.find("REA_SHARD_COUNT"), std::string::npos) << alone.problem;
  EXPECT_FALSE(detect({{"JOB_COMPLETION_INDEX", "8"}, {"REA_SHARD_COUNT", "8"}}).shard);
  EXPECT_FALSE(detect({{"JOB_COMPLETION_INDEX", "1"}, {"REA_SHARD_COUNT", "0"}}).shard);
}

TEST(BatchShard, MalformedVariablesAreProblemsNamingTheVariable) {
  for (const Environment& env : std::vector<Environment>{
           {{"REA_SHARD", "3/3"}},
           {{"REA_SHARD", "half"}},
           {{"TEST_SHARD_INDEX", "1"}},
           {{"TEST_SHARD_INDEX", "one"}, {"TEST_TOTAL_SHARDS", "3"}},
           {{"TEST_SHARD_INDEX", "3"}, {"TEST_TOTAL_SHARDS", "3"}},
       }) {
    auto detected = detect(env);
    EXPECT_FALSE(detected.shard.has_value()) << env.begin()->first;
    EXPECT_NE(detected.problem.find(env.begin()->first.substr(0, 10)), std::string::npos)
        << detected.problem;
  }
}

}  // namespace
}  // namespace rea::evidence
