#include "evidence/issue.h"

namespace rea::evidence {

std::string formatIssues(const std::vector<Issue>& issues) {
  std::string out;
  for (const auto& issue : issues) {
    if (!out.empty()) out += "; ";
    out += issue.path.empty() ? "(root)" : issue.path;
    out += ": ";
    out += issue.message;
  }
  return out;
}

std::string childPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string indexPath(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

}  // namespace rea::evidence
