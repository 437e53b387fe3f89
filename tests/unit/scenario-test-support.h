#pragma once
// Helpers shared by the scenario and projection tests: building scenario JSON, parsing it and
// looking at the issues as "path: message" strings.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "evidence/scenario.h"

namespace rea::evidence::testing {

inline Json minimalScenario() {
  return Json::parse(R"({"approved":true,"executable":"/bin/sh","working_directory":"/tmp"})");
}

inline Json fixture(const std::string& name) {
  std::ifstream in(std::string(REA_SOURCE_DIR) + "/tests/data/scenarios/" + name);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

inline Json withMember(Json scenario, const std::string& pointer, Json value) {
  scenario[Json::json_pointer(pointer)] = std::move(value);
  return scenario;
}
// The scenario with the member at a JSON pointer (e.g. "/terminal/columns") set to `value`.

inline std::vector<std::string> issuesOf(const Json& input) {
  std::vector<std::string> out;
  for (const auto& issue : parseScenario(input).issues) {
    out.push_back(issue.path + ": " + issue.message);
  }
  return out;
}

inline std::vector<std::string> issuePaths(const Json& input) {
  std::vector<std::string> out;
  for (const auto& issue : parseScenario(input).issues)
    out.push_back(issue.path);
  return out;
}

inline Scenario parsedOrFail(const Json& input) {
  auto result = parseScenario(input);
  EXPECT_TRUE(result.issues.empty()) << formatIssues(result.issues);
  return result.scenario.value_or(Scenario{});
}

inline std::string repeat(const std::string& unit, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i)
    out += unit;
  return out;
}

inline const std::string ASTRAL = "\xF0\x9F\x98\x80";  // U+1F600: 4 UTF-8 bytes, 2 UTF-16 units

}  // namespace rea::evidence::testing
