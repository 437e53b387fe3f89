#pragma once
// Which scenarios of a batch one worker captures (issue 21, `rea capture-batch --shard I/N`):
// the scenarios' stable ids (batch-corpus.h) are sorted, and shard I of N takes every N-th id
// starting with the I-th (I counted from 0). The shards of 0/N … (N-1)/N are disjoint, cover
// every id, and differ in size by at most one; the split depends only on the set of ids, never
// on the machine, the order the files were listed in or the time.
//
// Across machines the engine schedules (Slurm, Kubernetes, a CI matrix); rea only computes its
// share. Without `--shard` the share is detected from the engine's environment, first match wins:
//   REA_SHARD=I/N                                     the generic form (a CI matrix, a script)
//   TEST_SHARD_INDEX + TEST_TOTAL_SHARDS              the test runners' convention (Bazel, ...)
//   SLURM_ARRAY_TASK_ID + SLURM_ARRAY_TASK_MIN        a Slurm job array over a contiguous range:
//     + SLURM_ARRAY_TASK_COUNT (or _MAX)                I = (ID - MIN) / STEP, N = COUNT
//     [+ SLURM_ARRAY_TASK_STEP]
//   JOB_COMPLETION_INDEX + REA_SHARD_COUNT            a Kubernetes Indexed Job; the count is the
//                                                     Job's `completions`, which a pod cannot read
//                                                     without API access: the manifest sets it
// A variable that is set but malformed, or a set that is incomplete or inconsistent (an index
// not below the count), is a problem to report, not a reason to capture everything.
//
// Errors: none thrown; parse and detection results carry the problem as a sentence naming the
// variable or option.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rea::evidence {

struct Shard {
  uint64_t index = 0;  // from 0
  uint64_t count = 1;  // at least 1; index < count
};

bool operator==(const Shard& a, const Shard& b);

constexpr uint64_t MAX_SHARD_COUNT = 1000000;

struct ShardParse {
  std::optional<Shard> shard;
  std::string problem;  // set exactly when `shard` is not
};

ShardParse parseShard(const std::string& text);
// "I/N" with decimal I and N (no sign, no spaces), 1 <= N <= MAX_SHARD_COUNT, 0 <= I < N.

struct ShardDetection {
  std::optional<Shard> shard;  // nullopt and no problem: no engine variables set (one worker)
  std::string source;          // which convention matched, e.g. "SLURM_ARRAY_TASK_ID"
  std::string problem;         // set when variables are set but do not make a shard
};

using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;

ShardDetection detectShard(const EnvironmentLookup& lookup);
// The worker's share from the variables above (`lookup` returns a variable's value, nullopt
// when unset; an empty value counts as unset).

std::vector<std::string> selectShard(std::vector<std::string> ids, const Shard& shard);
// The ids of `shard`, sorted (byte order). Duplicate ids are kept as given.

}  // namespace rea::evidence
