#include "evidence/batch-shard.h"

#include <algorithm>

namespace rea::evidence {
namespace {

// A decimal number of at most 15 digits (no sign, no spaces), else nullopt.
std::optional<uint64_t> decimal(const std::string& text) {
  if (text.empty() || text.size() > 15) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

std::optional<std::string> get(const EnvironmentLookup& lookup, const char* name) {
  auto value = lookup(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

ShardDetection fail(const char* source, std::string problem) {
  ShardDetection result;
  result.source = source;
  result.problem = std::move(problem);
  return result;
}

ShardDetection found(const char* source, uint64_t index, uint64_t count) {
  if (count < 1 || count > MAX_SHARD_COUNT) {
    return fail(source, std::string(source) + ": the number of shards must be from 1 to " +
                            std::to_string(MAX_SHARD_COUNT));
  }
  if (index >= count) {
    return fail(source, std::string(source) + ": the shard index " + std::to_string(index) +
                            " is not below the number of shards " + std::to_string(count));
  }
  ShardDetection result;
  result.shard = Shard{index, count};
  result.source = source;
  return result;
}

// An index variable with its count variable: both set, both decimal.
ShardDetection pair(const EnvironmentLookup& lookup, const char* indexName, const char* countName) {
  auto index = get(lookup, indexName);
  auto count = get(lookup, countName);
  if (!count)
    return fail(indexName, std::string(indexName) + " is set but " + countName + " is not");
  auto i = decimal(*index);
  if (!i) return fail(indexName, std::string(indexName) + " is not a decimal number");
  auto n = decimal(*count);
  if (!n) return fail(indexName, std::string(countName) + " is not a decimal number");
  return found(indexName, *i, *n);
}

// Slurm numbers array tasks as written in `--array=MIN-MAX[:STEP]`; the shard is the task's
// position in that range. A list such as `--array=1,4,9` has no constant step: refused.
ShardDetection slurm(const EnvironmentLookup& lookup) {
  const char* source = "SLURM_ARRAY_TASK_ID";
  auto id = decimal(*get(lookup, source));
  if (!id) return fail(source, "SLURM_ARRAY_TASK_ID is not a decimal number");
  auto minText = get(lookup, "SLURM_ARRAY_TASK_MIN");
  if (!minText) return fail(source, "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not");
  auto min = decimal(*minText);
  if (!min) return fail(source, "SLURM_ARRAY_TASK_MIN is not a decimal number");
  uint64_t step = 1;
  if (auto stepText = get(lookup, "SLURM_ARRAY_TASK_STEP")) {
    auto value = decimal(*stepText);
    if (!value || *value == 0)
      return fail(source, "SLURM_ARRAY_TASK_STEP is not a positive number");
    step = *value;
  }
  if (*id < *min || (*id - *min) % step != 0) {
    return fail(source, "SLURM_ARRAY_TASK_ID is not in the array's range MIN-MAX:STEP");
  }
  std::optional<uint64_t> count;
  if (auto countText = get(lookup, "SLURM_ARRAY_TASK_COUNT")) {
    count = decimal(*countText);
    if (!count) return fail(source, "SLURM_ARRAY_TASK_COUNT is not a decimal number");
  }
  if (auto maxText = get(lookup, "SLURM_ARRAY_TASK_MAX")) {
    auto max = decimal(*maxText);
    if (!max || *max < *min) return fail(source, "SLURM_ARRAY_TASK_MAX is not a number >= MIN");
    uint64_t span = (*max - *min) / step + 1;
    if (!count) {
      count = span;
    } else if (*count != span) {
      // `--array=1,4,9` or `1-9%2`-like lists: the tasks are not MIN, MIN+STEP, ... MAX.
      return fail(source,
                  "the Slurm array is not one range MIN-MAX[:STEP] (SLURM_ARRAY_TASK_COUNT "
                  "differs from its span); submit with --array=0-(N-1)");
    }
  }
  if (!count) {
    return fail(source,
                "SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor "
                "SLURM_ARRAY_TASK_MAX is");
  }
  return found(source, (*id - *min) / step, *count);
}

}  // namespace

bool operator==(const Shard& a, const Shard& b) {
  return a.index == b.index && a.count == b.count;
}

ShardParse parseShard(const std::string& text) {
  ShardParse result;
  auto slash = text.find('/');
  if (slash == std::string::npos) {
    result.problem = "a shard is I/N: the index I (from 0) and the number of shards N";
    return result;
  }
  auto index = decimal(text.substr(0, slash));
  auto count = decimal(text.substr(slash + 1));
  if (!index || !count) {
    result.problem = "a shard is I/N with decimal numbers, e.g. 0/4";
  } else if (*count < 1 || *count > MAX_SHARD_COUNT) {
    result.problem = "the number of shards N must be from 1 to " + std::to_string(MAX_SHARD_COUNT);
  } else if (*index >= *count) {
    result.problem = "the shard index I counts from 0 and must be below N";
  } else {
    result.shard = Shard{*index, *count};
  }
  return result;
}

ShardDetection detectShard(const EnvironmentLookup& lookup) {
  if (auto text = get(lookup, "REA_SHARD")) {
    auto parsed = parseShard(*text);
    if (!parsed.shard) return fail("REA_SHARD", "REA_SHARD: " + parsed.problem);
    return found("REA_SHARD", parsed.shard->index, parsed.shard->count);
  }
  if (get(lookup, "TEST_SHARD_INDEX")) return pair(lookup, "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS");
  if (get(lookup, "SLURM_ARRAY_TASK_ID")) return slurm(lookup);
  if (get(lookup, "JOB_COMPLETION_INDEX")) {
    return pair(lookup, "JOB_COMPLETION_INDEX", "REA_SHARD_COUNT");
  }
  return ShardDetection{};
}

std::vector<std::string> selectShard(std::vector<std::string> ids, const Shard& shard) {
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> selected;
  for (size_t i = shard.index; i < ids.size(); i += shard.count)
    selected.push_back(ids[i]);
  return selected;
}

}  // namespace rea::evidence
