#include "evidence/stability.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "evidence/compare-status.h"
#include "evidence/json-member.h"

namespace rea::evidence {
namespace {

constexpr std::array<const char*, 7> DIMENSIONS = {"terminal", "interaction", "exit", "filesystem",
                                                   "protocol", "process",     "shim"};

enum class Agreement { STABLE, UNKNOWN, UNSTABLE };  // in order of precedence

const char* agreementName(Agreement agreement) {
  switch (agreement) {
    case Agreement::STABLE:
      return "stable";
    case Agreement::UNKNOWN:
      return "unknown";
    case Agreement::UNSTABLE:
      return "unstable";
  }
  return "unknown";
}

Agreement agreementOf(const Json& json) {
  auto status = json.is_string() ? parseCompareStatus(json.get<std::string>()) : std::nullopt;
  if (status == CompareStatus::UNCHANGED) return Agreement::STABLE;
  if (status && differs(*status)) return Agreement::UNSTABLE;
  return Agreement::UNKNOWN;  // truncated, unknown, or anything unexpected
}

std::string text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

Json assessStability(const std::vector<Json>& captures, const CompareOptions& options) {
  if (captures.size() < 2) throw std::invalid_argument("stability needs at least two captures");
  std::array<Agreement, DIMENSIONS.size()> agreement;
  agreement.fill(Agreement::STABLE);
  Json differences = Json::array();
  Json limitations = Json::array();
  uint64_t pairs = 0;
  for (size_t i = 0; i < captures.size(); ++i) {
    for (size_t j = i + 1; j < captures.size(); ++j) {
      ++pairs;
      Json comparison = compareCaptures(captures[i], captures[j], options);
      Json differing = Json::array();
      for (size_t d = 0; d < DIMENSIONS.size(); ++d) {
        const Json& status = comparison[DIMENSIONS[d]];
        agreement[d] = std::max(agreement[d], agreementOf(status));
        if (status != "unchanged") differing.push_back(DIMENSIONS[d]);
      }
      if (comparison["limitations"].is_array()) {
        for (const Json& sentence : comparison["limitations"]) {
          if (std::find(limitations.begin(), limitations.end(), sentence) == limitations.end()) {
            limitations.push_back(sentence);
          }
        }
      }
      if (comparison["status"] == "unchanged") continue;
      Json difference = Json::object();
      difference["left"] = i + 1;
      difference["right"] = j + 1;
      difference["status"] = comparison["status"];
      difference["dimensions"] = std::move(differing);
      difference["first_divergence"] = comparison["first_divergence"];
      differences.push_back(std::move(difference));
    }
  }

  Agreement overall = *std::max_element(agreement.begin(), agreement.end());
  Json result = Json::object();
  result["runs"] = captures.size();
  result["pairs"] = pairs;
  result["status"] = agreementName(overall);
  Json dimensions = Json::object();
  for (size_t d = 0; d < DIMENSIONS.size(); ++d)
    dimensions[DIMENSIONS[d]] = agreementName(agreement[d]);
  result["dimensions"] = std::move(dimensions);
  result["differences"] = std::move(differences);
  result["limitations"] = std::move(limitations);
  return result;
}

std::string summariseStability(const Json& stability) {
  std::ostringstream out;
  const Json& dimensions = member(stability, "dimensions");
  auto counted = [](const Json& count, const char* noun) {
    return text(count) + " " + noun + (count == 1 ? "" : "s");
  };
  out << "stability: " << text(member(stability, "status")) << " ("
      << counted(member(stability, "runs"), "run") << ", "
      << counted(member(stability, "pairs"), "pair") << " compared)\n";
  for (const char* name : DIMENSIONS) {
    std::string label = std::string("  ") + name;
    label.resize(15, ' ');
    out << label << text(member(dimensions, name)) << '\n';
  }
  for (const Json& difference : member(stability, "differences")) {
    out << "runs " << text(member(difference, "left")) << " and "
        << text(member(difference, "right")) << ": " << text(member(difference, "status"));
    const Json& first = member(difference, "first_divergence");
    if (member(first, "status") == "found") {
      out << ", first divergence in " << text(member(first, "dimension"));
      const Json& left = member(first, "left");
      if (left.is_object() && member(left, "kind").is_string())
        out << ' ' << text(member(left, "kind"));
      out << " at index " << text(member(first, "index"));
      if (member(first, "timing") == true)
        out << " (timing, off by " << text(member(first, "deviation_ms")) << " ms)";
    } else if (member(first, "status") == "unknown") {
      out << ": " << text(member(first, "reason"));
    }
    out << '\n';
  }
  for (const Json& sentence : member(stability, "limitations"))
    out << "limitation: " << text(sentence) << '\n';
  return out.str();
}

}  // namespace rea::evidence
