#pragma once
// A validation finding: where (a JSON path such as `events[3].at_ms` or `manifest.scenario`)
// and which rule was broken. Validation in evidence/ returns every finding as data; listing all
// problems is the product (STYLE §3).

#include <string>
#include <vector>

namespace rea::evidence {

struct Issue {
  std::string path;     // dotted JSON path, `[i]` for array elements; "" for the document itself
  std::string message;  // the rule, in words, with the bound that was broken
};

std::string formatIssues(const std::vector<Issue>& issues);
// "path: message; path: message" (the form of SPEC B §5.4), "(root)" standing for "".

std::string childPath(const std::string& parent, const std::string& key);
std::string indexPath(const std::string& parent, size_t index);
// Path building: childPath("events[3]", "at_ms") == "events[3].at_ms", childPath("", "a") == "a",
// indexPath("events", 3) == "events[3]".

}  // namespace rea::evidence
