#pragma once
// Capture fixtures for the comparison tests (tests/data/compare/): a minimal valid capture (no
// output, checkpoints `before`@0 and `after_settlement`@50, settlement elapsed 50 ms) and an
// interactive one (a 10×3 shell session with output, screens, interactions, a process tree,
// a checkpoint, a shim call and two protocol events).

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "evidence/json.h"

namespace rea::evidence::compare_fixtures {

inline const CompareOptions BASELINE{true, std::nullopt};
// --baseline-semantics: compare exactly as B §9 does.

inline Json load(const std::string& name) {
  std::ifstream in(std::string(REA_SOURCE_DIR) + "/tests/data/compare/" + name);
  if (!in) throw std::runtime_error("missing fixture " + name);
  return Json::parse(in);
}

inline Json minimalCapture() {
  return load("minimal-capture.json");
}

inline Json interactiveCapture() {
  return load("interactive-capture.json");
}

}  // namespace rea::evidence::compare_fixtures
