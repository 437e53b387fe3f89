#include "evidence/scenario-rules.h"

#include <map>
#include <set>

#include "evidence/issue.h"
#include "evidence/strict-reader.h"

namespace rea::evidence {
namespace {

// Environment names a scenario may not set or inherit (rule 3): the harness sets them itself.
// PATH is deliberately not among them.
const char* const RESERVED_ENVIRONMENT[] = {
    "HOME",
    "TERM",
    "REA_PROCESS_RUN_ID",
    "REA_REPLAY_HTTP_URL",
    "REA_REPLAY_WEBSOCKET_URL",
    "REA_SHIM_LEDGER_URL",
};

// Checkpoint names the capture lifecycle records itself (rule 6).
const char* const RESERVED_CHECKPOINTS[] = {"before", "after_settlement"};

bool isReservedEnvironmentName(const std::string& name) {
  for (const char* reserved : RESERVED_ENVIRONMENT) {
    if (name == reserved) return true;
  }
  return false;
}

}  // namespace

void applyCrossFieldRules(const ScenarioFacts& facts, int64_t timeoutMs, StrictReader& r) {
  // 1. Events are non-decreasing in at_ms: one issue, at the first offending index. An event
  // that waits (`when`) is ordered by its place in the list, its at_ms is only a lower bound.
  for (size_t i = 1; i < facts.orderedEventTimes.size(); ++i) {
    const auto& previous = facts.orderedEventTimes[i - 1];
    const auto& current = facts.orderedEventTimes[i];
    if (current.second < previous.second) {
      r.fail(childPath(indexPath("events", current.first), "at_ms"),
             "events must be non-decreasing in at_ms: " + std::to_string(current.second) +
                 " is less than the " + std::to_string(previous.second) + " of events[" +
                 std::to_string(previous.first) + "]");
      break;
    }
  }

  std::set<std::string> explicitNames(facts.environmentNames.begin(), facts.environmentNames.end());

  // 2. Every secret alias names a key of `environment` (inherited names do not count).
  for (const auto& alias : facts.aliases) {
    if (explicitNames.count(alias.second) == 0) {
      r.fail(indexPath("secret_aliases", alias.first),
             "secret alias \"" + alias.second + "\" must be a key of environment");
    }
  }

  // 3. Reserved names may be neither set nor inherited.
  for (const auto& name : facts.environmentNames) {
    if (isReservedEnvironmentName(name)) {
      r.fail(childPath("environment", name),
             name + " is reserved by the harness and may not be set");
    }
  }
  for (const auto& name : facts.inherited) {
    if (isReservedEnvironmentName(name.second)) {
      r.fail(indexPath("inherit_environment", name.first),
             name.second + " is reserved by the harness and may not be inherited");
    }
  }

  // 4. A name is either explicit or inherited, not both.
  for (const auto& name : facts.inherited) {
    if (explicitNames.count(name.second) != 0) {
      r.fail(indexPath("inherit_environment", name.first),
             name.second + " is also set in environment: a name cannot be explicit and inherited");
    }
  }

  // 5. No event after the timeout (equal is allowed).
  if (facts.timeoutValid) {
    for (const auto& time : facts.eventTimes) {
      if (time.second > timeoutMs) {
        r.fail(childPath(indexPath("events", time.first), "at_ms"),
               "must not exceed timeout_ms (" + std::to_string(timeoutMs) + ")");
      }
    }
  }

  // 6. and 7. Checkpoint names are not reserved and are unique.
  std::map<std::string, size_t> firstCheckpoint;
  for (const auto& name : facts.checkpointNames) {
    std::string path = childPath(indexPath("checkpoints", name.first), "name");
    for (const char* reserved : RESERVED_CHECKPOINTS) {
      if (name.second == reserved) {
        r.fail(path, "\"" + name.second + "\" is reserved by the capture lifecycle");
      }
    }
    auto inserted = firstCheckpoint.emplace(name.second, name.first);
    if (!inserted.second) {
      r.fail(path, "checkpoint names must be unique: \"" + name.second +
                       "\" is also the name of checkpoints[" +
                       std::to_string(inserted.first->second) + "]");
    }
  }

  // 8. Command-shim names are unique.
  std::map<std::string, size_t> firstShim;
  for (const auto& name : facts.shimNames) {
    auto inserted = firstShim.emplace(name.second, name.first);
    if (!inserted.second) {
      r.fail(childPath(indexPath("command_shims", name.first), "name"),
             "command shim names must be unique: \"" + name.second +
                 "\" is also the name of command_shims[" + std::to_string(inserted.first->second) +
                 "]");
    }
  }

  // 9. An event waiting for a checkpoint names a declared one (not `before`, which is taken
  // before the spawn, nor `after_settlement`, taken after the run).
  for (const auto& wait : facts.conditionCheckpoints) {
    if (firstCheckpoint.count(wait.second) == 0) {
      r.fail(childPath(childPath(indexPath("events", wait.first), "when"), "name"),
             "must name a checkpoint declared in checkpoints, got \"" + wait.second + "\"");
    }
  }
}

}  // namespace rea::evidence
