#include "evidence/process-renumber.h"

#include <unordered_map>

#include "evidence/bucket.h"
#include "evidence/normalise-rule.h"

namespace rea::evidence {

std::vector<ProcessSample> renumberProcessSamples(const std::vector<RawProcessSample>& samples,
                                                  int64_t rootPid, const NormaliseContext& context,
                                                  int64_t timeBucketMs) {
  std::unordered_map<int64_t, int64_t> numbers;
  std::vector<std::string> rawIds;
  auto see = [&numbers, &rawIds](int64_t id) {
    if (id > 0 && numbers.emplace(id, static_cast<int64_t>(numbers.size()) + 1).second) {
      rawIds.push_back(std::to_string(id));
    }
  };
  see(rootPid);
  for (auto& sample : samples) {
    see(sample.pid);
    see(sample.parentPid);
    see(sample.processGroupId.value_or(0));
    see(sample.sessionId.value_or(0));
  }
  auto number = [&numbers](int64_t id, int64_t fallback) {
    auto found = numbers.find(id);
    return found == numbers.end() ? fallback : found->second;
  };
  auto optionalNumber = [&number](std::optional<int64_t> id) -> std::optional<int64_t> {
    if (!id) return std::nullopt;
    return number(*id, 0);
  };

  NormaliseContext commandContext = context;
  commandContext.temporaryRoot = std::string(NO_TEMPORARY_ROOT);
  commandContext.pids = {rootPid};
  Normaliser normaliseCommand(commandContext);
  std::unique_ptr<NormaliseRule> allIds;
  if (context.normalisePids && !rawIds.empty()) {
    allIds = NormaliseRule::digitTokens(rawIds, false, "<pid>");
  }

  std::vector<ProcessSample> result;
  result.reserve(samples.size());
  for (auto& sample : samples) {
    std::string command = normaliseCommand(sample.command);
    if (allIds) {
      std::string replaced;
      allIds->apply(command, 0, true, replaced);
      command = std::move(replaced);
    }
    ProcessSample out;
    out.atMs = bucketMs(sample.atMs, timeBucketMs);
    out.pid = number(sample.pid, 1);
    out.parentPid = number(sample.parentPid, 0);
    out.command = std::move(command);
    out.processGroupId = optionalNumber(sample.processGroupId);
    out.sessionId = optionalNumber(sample.sessionId);
    result.push_back(std::move(out));
  }
  return result;
}

}  // namespace rea::evidence
