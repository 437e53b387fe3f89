// Default comparison (SPEC A7): every dimension on content with its timestamps masked, timing
// measured separately over the content-matched prefix of each observation list.

#include <algorithm>

#include "evidence/compare-internal.h"

namespace rea::evidence::_ {
namespace {

bool isTimestampKey(const std::string& key) {
  return key == "at_ms" || key == "scheduled_at_ms" || key == "dispatched_at_ms" ||
         key == "elapsed_ms" || key == "held_at_ms";
}

Json maskTimes(const Json& value, const std::string& path,
               std::vector<std::pair<std::string, int64_t>>& times) {
  if (value.is_object()) {
    Json masked = Json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      std::string childPath = path.empty() ? it.key() : path + "." + it.key();
      if (isTimestampKey(it.key())) {
        if (std::optional<int64_t> time = nonNegativeInteger(it.value())) {
          times.emplace_back(std::move(childPath), *time);
        }
        continue;
      }
      masked[it.key()] = maskTimes(it.value(), childPath, times);
    }
    return masked;
  }
  if (value.is_array()) {
    Json masked = Json::array();
    for (size_t i = 0; i < value.size(); ++i) {
      masked.push_back(maskTimes(value[i], path + "[" + std::to_string(i) + "]", times));
    }
    return masked;
  }
  return value;
}

std::optional<int64_t> pairDeviation(const std::vector<std::pair<std::string, int64_t>>& left,
                                     const std::vector<std::pair<std::string, int64_t>>& right) {
  // Both sorted by path; only timestamps present on both sides pair up.
  std::optional<int64_t> deviation;
  size_t i = 0, j = 0;
  while (i < left.size() && j < right.size()) {
    if (left[i].first < right[j].first) {
      ++i;
    } else if (right[j].first < left[i].first) {
      ++j;
    } else {
      int64_t difference = left[i].second - right[j].second;
      if (difference < 0) difference = -difference;
      if (!deviation || difference > *deviation) deviation = difference;
      ++i;
      ++j;
    }
  }
  return deviation;
}

std::vector<Observation> listObservations(const Json& capture, const char* key,
                                          const char* timeKey) {
  std::vector<Observation> list;
  for (const Json& element : arrayMember(capture, key)) {
    list.push_back(observe(element, elementTime(element, timeKey)));
  }
  return list;
}

std::vector<Observation> filesystemObservations(const Json& capture) {
  std::vector<Observation> list = listObservations(capture, "filesystem_checkpoints", "at_ms");
  list.push_back(observe(finalFilesystemElement(capture), std::nullopt));
  return list;
}

}  // namespace

Observation observe(const Json& element, std::optional<int64_t> atMs) {
  Observation observation;
  observation.content = maskTimes(element, "", observation.times);
  observation.original = element;
  observation.atMs = atMs;
  std::sort(observation.times.begin(), observation.times.end());
  return observation;
}

DimensionOutcome compareObservations(Dimension dimension, const std::vector<Observation>& left,
                                     const std::vector<Observation>& right, int64_t toleranceMs) {
  DimensionOutcome outcome;
  size_t common = std::min(left.size(), right.size());
  size_t matched = 0;
  while (matched < common && deepEqual(left[matched].content, right[matched].content, true))
    ++matched;
  bool equal = matched == left.size() && matched == right.size();
  outcome.contentStatus = classifyCollection(equal, left.empty(), right.empty());
  if (!equal) {
    bool hasLeft = matched < left.size();
    bool hasRight = matched < right.size();
    outcome.candidates.push_back(
        foundDivergence(dimension, matched, hasLeft ? left[matched].atMs : std::nullopt,
                        hasRight ? right[matched].atMs : std::nullopt,
                        hasLeft ? left[matched].content : Json(nullptr),
                        hasRight ? right[matched].content : Json(nullptr)));
  }

  std::optional<Candidate> late;
  for (size_t i = 0; i < matched; ++i) {
    std::optional<int64_t> deviation = pairDeviation(left[i].times, right[i].times);
    if (!deviation) continue;
    if (!outcome.maxDeviationMs || *deviation > *outcome.maxDeviationMs) {
      outcome.maxDeviationMs = deviation;
    }
    if (*deviation > toleranceMs && !late) {
      late = timingDivergence(dimension, i, left[i].atMs, right[i].atMs, left[i].original,
                              right[i].original, *deviation);
    }
  }
  if (late) {
    outcome.exceedsTolerance = true;
    outcome.candidates.push_back(std::move(*late));
  }
  return outcome;
}

Outcomes compareContentDimensions(const Json& left, const Json& right, int64_t toleranceMs) {
  Outcomes outcomes;
  for (size_t i = 0; i < DIMENSION_COUNT; ++i) {
    Dimension dimension = DIMENSIONS[i];
    auto lists = [&](auto build) {
      return compareObservations(dimension, build(left), build(right), toleranceMs);
    };
    switch (dimension) {
      case Dimension::TERMINAL:
        outcomes[i] = compareTerminalContent(left, right, toleranceMs);
        break;
      case Dimension::INTERACTION:
        outcomes[i] = lists([](const Json& capture) {
          return listObservations(capture, "interaction_events", "dispatched_at_ms");
        });
        break;
      case Dimension::EXIT:
        outcomes[i] = lists([](const Json& capture) {
          return std::vector<Observation>{observe(exitElement(capture), std::nullopt)};
        });
        break;
      case Dimension::FILESYSTEM:
        outcomes[i] = lists(filesystemObservations);
        break;
      case Dimension::PROTOCOL:
        outcomes[i] = lists([](const Json& capture) {
          return listObservations(capture, "protocol_events", "at_ms");
        });
        break;
      case Dimension::PROCESS:
        outcomes[i] = lists(processTreeObservations);
        break;
      case Dimension::SHIM:
        outcomes[i] = lists(
            [](const Json& capture) { return listObservations(capture, "shim_events", "at_ms"); });
        break;
    }
  }
  return outcomes;
}

}  // namespace rea::evidence::_
