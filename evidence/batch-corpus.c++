#include "evidence/batch-corpus.h"

#include <nlohmann/json.hpp>

#include "evidence/commitment.h"
#include "evidence/projection.h"
#include "evidence/scenario.h"

namespace rea::evidence {

std::string scenarioId(const std::string& relativePath) {
  std::string path = relativePath;
  const std::string suffix = ".json";
  if (path.size() > suffix.size() &&
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    path.resize(path.size() - suffix.size());
  }
  static const char HEX[] = "0123456789ABCDEF";
  std::string id;
  for (size_t i = 0; i < path.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(path[i]);
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || (c == '.' && i > 0);
    if (c == '/') {
      id += '~';
    } else if (plain) {
      id += static_cast<char>(c);
    } else {
      id += '%';
      id += HEX[c >> 4];
      id += HEX[c & 15];
    }
  }
  return id;
}

bool evidenceMatchesScenario(const Capture& capture, const Scenario& scenario) {
  const Json& recorded = *capture.manifest.scenario;
  std::optional<std::string> executableSha256;
  auto hash = recorded.find("executable_sha256");
  if (hash != recorded.end() && hash->is_string()) executableSha256 = hash->get<std::string>();
  return commitment(fullScenarioProjection(scenario, executableSha256)) ==
         capture.manifest.fullScenarioSha256;
}

}  // namespace rea::evidence
