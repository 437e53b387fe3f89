#pragma once
// The cross-field rules of a scenario (SPEC B §3.5): part of the scenario parser, kept apart
// because they look at the scenario as a whole rather than at one field. The parser collects
// ScenarioFacts while reading (only values that were valid on their own), then calls
// applyCrossFieldRules once; every broken rule becomes its own issue.
//
// Errors: none thrown; findings go to the reader's issues.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rea::evidence {

class StrictReader;

struct ScenarioFacts {
  using Indexed = std::pair<size_t, std::string>;  // (index in its array, value)

  std::vector<std::pair<size_t, int64_t>> eventTimes;         // (index in `events`, at_ms)
  std::vector<std::pair<size_t, int64_t>> orderedEventTimes;  // the same, events without `when`
  std::vector<Indexed> conditionCheckpoints;  // (event index, `when.name`) of checkpoint waits
  std::vector<std::string> environmentNames;  // valid keys of `environment`, even when their
                                              // value was not a string
  std::vector<Indexed> inherited;             // valid `inherit_environment` names
  std::vector<Indexed> aliases;               // valid `secret_aliases` names
  std::vector<Indexed> checkpointNames;       // valid checkpoint names
  std::vector<Indexed> shimNames;             // valid command-shim names
  bool timeoutValid = true;                   // false when `timeout_ms` itself was invalid
};

void applyCrossFieldRules(const ScenarioFacts& facts, int64_t timeoutMs, StrictReader& reader);
// Evaluates all eight rules of B §3.5 in their numbered order, then rule 9 (a `checkpoint`
// condition names a declared checkpoint). Rule 1 (non-decreasing at_ms, among the events
// without `when`) reports only the first offending event; every other rule reports each offending
// element. Rule 5 is skipped when timeout_ms was invalid (its own issue already says why).

}  // namespace rea::evidence
