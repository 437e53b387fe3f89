#include "evidence/compare.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "evidence/compare-internal.h"
#include "evidence/pid-placeholder.h"

namespace rea::evidence {
namespace _ {

namespace {

constexpr int64_t MAX_SAFE_INTEGER = (int64_t{1} << 53) - 1;

const Json& emptyArray() {
  static const Json value = Json::array();
  return value;
}

}  // namespace

const char* dimensionName(Dimension dimension) {
  switch (dimension) {
    case Dimension::TERMINAL:
      return "terminal";
    case Dimension::INTERACTION:
      return "interaction";
    case Dimension::EXIT:
      return "exit";
    case Dimension::FILESYSTEM:
      return "filesystem";
    case Dimension::PROTOCOL:
      return "protocol";
    case Dimension::PROCESS:
      return "process";
    case Dimension::SHIM:
      return "shim";
  }
  return "unknown";
}

const Json& arrayMember(const Json& object, const char* key) {
  const Json& value = member(object, key);
  return value.is_array() ? value : emptyArray();
}

std::optional<int64_t> nonNegativeInteger(const Json& value) {
  if (value.is_number_unsigned()) {
    uint64_t number = value.get<uint64_t>();
    if (number <= static_cast<uint64_t>(MAX_SAFE_INTEGER)) return static_cast<int64_t>(number);
    return std::nullopt;
  }
  if (value.is_number_integer()) {
    int64_t number = value.get<int64_t>();
    if (number >= 0 && number <= MAX_SAFE_INTEGER) return number;
    return std::nullopt;
  }
  if (value.is_number_float()) {
    // JSON `5.0` is the JavaScript number 5.
    double number = value.get<double>();
    if (std::isfinite(number) && number >= 0 && number <= static_cast<double>(MAX_SAFE_INTEGER) &&
        std::floor(number) == number) {
      return static_cast<int64_t>(number);
    }
  }
  return std::nullopt;
}

std::optional<int64_t> elementTime(const Json& element, const char* key) {
  return nonNegativeInteger(member(element, key));
}

bool deepEqual(const Json& a, const Json& b, bool pidMatchesNumber) {
  if (a.is_number() && b.is_number()) {
    // Every JSON number is a JavaScript double; integer kinds compare exactly when both are
    // integers so that large ids do not collapse through a lossy conversion.
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    return a == b;
  }
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !deepEqual(it.value(), *other, pidMatchesNumber)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!deepEqual(a[i], b[i], pidMatchesNumber)) return false;
    }
    return true;
  }
  if (pidMatchesNumber && a.is_string()) {
    return equalUpToPids(a.get_ref<const std::string&>(), b.get_ref<const std::string&>());
  }
  return a == b;
}

Candidate foundDivergence(Dimension dimension, uint64_t index, std::optional<int64_t> leftAtMs,
                          std::optional<int64_t> rightAtMs, Json left, Json right) {
  Json divergence = Json::object();
  divergence["status"] = "found";
  divergence["dimension"] = dimensionName(dimension);
  divergence["index"] = index;
  divergence["left_at_ms"] = leftAtMs ? Json(*leftAtMs) : Json(nullptr);
  divergence["right_at_ms"] = rightAtMs ? Json(*rightAtMs) : Json(nullptr);
  divergence["left"] = std::move(left);
  divergence["right"] = std::move(right);
  return Candidate{std::move(divergence), leftAtMs, rightAtMs};
}

Candidate timingDivergence(Dimension dimension, uint64_t index, std::optional<int64_t> leftAtMs,
                           std::optional<int64_t> rightAtMs, Json left, Json right,
                           int64_t deviationMs) {
  Candidate candidate =
      foundDivergence(dimension, index, leftAtMs, rightAtMs, std::move(left), std::move(right));
  candidate.divergence["timing"] = true;
  candidate.divergence["deviation_ms"] = deviationMs;
  return candidate;
}

}  // namespace _

namespace {

using _::arrayMember;
using _::Candidate;
using _::Dimension;
using _::DIMENSIONS;

const char TRUNCATED_SENTENCE[] = "At least one capture is truncated.";
const char RESIDUAL_SENTENCE[] = "Residual unknowns prevent proving that no divergence occurred.";
const char NORMALIZATION_SENTENCE[] = "Capture normalization rules differ.";
const char AGE_MESSAGE[] = "Process capture exceeds max_capture_age_ms";

bool hasUnknown(const Json& capture, const char* scope) {
  for (const Json& residual : arrayMember(capture, "residual_unknowns")) {
    const Json& value = member(residual, "scope");
    if (value.is_string() && value.get_ref<const std::string&>() == scope) return true;
  }
  return false;
}

Json timingMember(int64_t toleranceMs, const _::Outcomes* outcomes) {
  Json timing = Json::object();
  timing["tolerance_ms"] = toleranceMs;
  for (size_t i = 0; i < _::DIMENSION_COUNT; ++i) {
    Json entry = Json::object();
    std::optional<int64_t> deviation;
    bool exceeds = false;
    if (outcomes != nullptr) {
      deviation = (*outcomes)[i].maxDeviationMs;
      exceeds = (*outcomes)[i].exceedsTolerance;
    }
    entry["max_deviation_ms"] = deviation ? Json(*deviation) : Json(nullptr);
    entry["exceeds_tolerance"] = exceeds;
    timing[_::dimensionName(DIMENSIONS[i])] = std::move(entry);
  }
  return timing;
}

Json truncatedComparison(bool withTiming, int64_t toleranceMs) {
  Json result = Json::object();
  result["status"] = compareStatusName(CompareStatus::TRUNCATED);
  for (Dimension dimension : DIMENSIONS)
    result[_::dimensionName(dimension)] = compareStatusName(CompareStatus::TRUNCATED);
  result["first_divergence"] = {{"status", "unknown"}, {"reason", TRUNCATED_SENTENCE}};
  result["limitations"] = Json::array({TRUNCATED_SENTENCE});
  if (withTiming) result["timing"] = timingMember(toleranceMs, nullptr);
  return result;
}

const Candidate* chooseFirstDivergence(const _::Outcomes& outcomes) {
  // Smallest min(left_at_ms, right_at_ms), null = +∞; the first such candidate in dimension
  // (then preference) order wins ties.
  const Candidate* best = nullptr;
  std::optional<int64_t> bestTime;
  auto earlier = [](std::optional<int64_t> a, std::optional<int64_t> b) {
    if (!a) return false;
    return !b || *a < *b;
  };
  for (const _::DimensionOutcome& outcome : outcomes) {
    for (const Candidate& candidate : outcome.candidates) {
      std::optional<int64_t> time = candidate.leftAtMs;
      if (earlier(candidate.rightAtMs, time)) time = candidate.rightAtMs;
      if (best == nullptr || earlier(time, bestTime)) {
        best = &candidate;
        bestTime = time;
      }
    }
  }
  return best;
}

void appendStrings(Json& list, const Json& source) {
  if (!source.is_array()) return;
  for (const Json& item : source)
    list.push_back(item);
}

}  // namespace

int64_t defaultTimingToleranceMs(const Json& normalization) {
  std::optional<int64_t> bucket = _::elementTime(normalization, "time_bucket_ms");
  int64_t scaled = bucket && *bucket <= (int64_t{1} << 40) ? *bucket * 5 : 0;
  return std::max<int64_t>(50, scaled);
}

Json compareCaptures(const Json& left, const Json& right, const CompareOptions& options) {
  bool baseline = options.baselineSemantics;
  int64_t toleranceMs = options.timingToleranceMs
                            ? *options.timingToleranceMs
                            : defaultTimingToleranceMs(member(left, "normalization"));

  if (member(left, "truncated") == true || member(right, "truncated") == true) {
    return truncatedComparison(!baseline, toleranceMs);
  }

  bool sameNormalization =
      _::deepEqual(member(left, "normalization"), member(right, "normalization"));
  _::Outcomes outcomes = baseline ? _::compareBaselineDimensions(left, right)
                                  : _::compareContentDimensions(left, right, toleranceMs);

  std::array<CompareStatus, _::DIMENSION_COUNT> statuses;
  for (size_t i = 0; i < _::DIMENSION_COUNT; ++i) {
    Dimension dimension = DIMENSIONS[i];
    const char* scope = _::dimensionName(dimension);
    bool normalizationMatters = dimension != Dimension::EXIT;
    if (outcomes[i].exceedsTolerance) {
      // A7: a timing deviation beyond tolerance makes the overall status `changed`, residual
      // or not; reporting the dimension `changed` keeps `status` derivable from the dimensions
      // (B §9.3), which REA's consumers check. Only the default mode measures timing.
      statuses[i] = CompareStatus::CHANGED;
    } else if ((normalizationMatters && !sameNormalization) || hasUnknown(left, scope) ||
               hasUnknown(right, scope)) {
      statuses[i] = CompareStatus::UNKNOWN;
    } else {
      statuses[i] = outcomes[i].contentStatus;
    }
  }

  Json result = Json::object();
  result["status"] = compareStatusName(overallStatus(statuses));
  for (size_t i = 0; i < _::DIMENSION_COUNT; ++i) {
    result[_::dimensionName(DIMENSIONS[i])] = compareStatusName(statuses[i]);
  }

  if (const Candidate* first = chooseFirstDivergence(outcomes)) {
    result["first_divergence"] = first->divergence;
  } else if (!sameNormalization || !arrayMember(left, "residual_unknowns").empty() ||
             !arrayMember(right, "residual_unknowns").empty()) {
    result["first_divergence"] = {{"status", "unknown"}, {"reason", RESIDUAL_SENTENCE}};
  } else {
    result["first_divergence"] = {{"status", "none"}};
  }

  Json limitations = Json::array();
  appendStrings(limitations, member(left, "limitations"));
  appendStrings(limitations, member(right, "limitations"));
  for (const Json* capture : {&left, &right}) {
    for (const Json& residual : arrayMember(*capture, "residual_unknowns")) {
      limitations.push_back(member(residual, "reason"));
    }
  }
  if (!sameNormalization) limitations.push_back(NORMALIZATION_SENTENCE);
  result["limitations"] = std::move(limitations);

  if (!baseline) result["timing"] = timingMember(toleranceMs, &outcomes);
  return result;
}

std::optional<std::string> checkCaptureAge(std::optional<int64_t> maxCaptureAgeMs, int64_t nowMs,
                                           int64_t leftCompletedAtMs, int64_t rightCompletedAtMs) {
  if (!maxCaptureAgeMs) return std::nullopt;
  for (int64_t completedAtMs : {leftCompletedAtMs, rightCompletedAtMs}) {
    // Compared as JavaScript does (doubles), so extreme clocks cannot overflow.
    double age = static_cast<double>(nowMs) - static_cast<double>(completedAtMs);
    if (age > static_cast<double>(*maxCaptureAgeMs)) return std::string(AGE_MESSAGE);
  }
  return std::nullopt;
}

std::string summariseComparison(const Json& comparison) {
  std::ostringstream out;
  auto text = [](const Json& value) {
    return value.is_string() ? value.get<std::string>() : value.dump();
  };
  out << "comparison: " << text(member(comparison, "status")) << '\n';
  const Json& timing = member(comparison, "timing");
  for (Dimension dimension : DIMENSIONS) {
    const char* name = _::dimensionName(dimension);
    std::string label = std::string("  ") + name;
    label.resize(15, ' ');
    std::string status = text(member(comparison, name));
    out << label << status;
    const Json& entry = member(timing, name);
    const Json& deviation = member(entry, "max_deviation_ms");
    if (deviation.is_number()) {
      if (status.size() < 10) out << std::string(10 - status.size(), ' ');
      out << " (timing: max " << deviation.dump() << " ms";
      if (member(entry, "exceeds_tolerance") == true) {
        out << ", beyond the tolerance of " << member(timing, "tolerance_ms").dump() << " ms";
      }
      out << ')';
    }
    out << '\n';
  }
  const Json& first = member(comparison, "first_divergence");
  std::string status = text(member(first, "status"));
  out << "first divergence: ";
  if (status == "found") {
    out << text(member(first, "dimension"));
    // Terminal observations say what their index counts (stream bytes or screen moments).
    const Json& kind = member(member(first, "left"), "kind");
    if (kind.is_string()) out << ' ' << kind.get<std::string>();
    out << " at index " << member(first, "index").dump();
    std::optional<int64_t> leftAt = _::elementTime(first, "left_at_ms");
    std::optional<int64_t> rightAt = _::elementTime(first, "right_at_ms");
    auto ms = [](std::optional<int64_t> value) {
      return value ? std::to_string(*value) + " ms" : std::string("-");
    };
    out << " (left " << ms(leftAt) << ", right " << ms(rightAt) << ')';
    if (member(first, "timing") == true) {
      out << ", timing off by " << member(first, "deviation_ms").dump() << " ms";
    }
  } else if (status == "unknown") {
    out << "unknown: " << text(member(first, "reason"));
  } else {
    out << status;
  }
  out << '\n';
  return out.str();
}

}  // namespace rea::evidence
