#include "evidence/validate.h"

#include <set>

#include <nlohmann/json.hpp>

#include "evidence/commitment.h"
#include "evidence/timestamp.h"

namespace rea::evidence {
namespace {

class Rules {
 public:
  explicit Rules(std::vector<Issue>& issues) : issues(issues) {}

  void require(bool condition, const char* path, std::string message) {
    if (!condition) issues.push_back(Issue{path, std::move(message)});
  }

  // Rule 4: `sequence` equals the index throughout; names the first element that breaks it.
  template <typename T>
  void contiguous(const char* path, const std::vector<T>& items) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].sequence != static_cast<int64_t>(i)) {
        issues.push_back(Issue{path, "sequence values must be contiguous from 0 (element " +
                                         std::to_string(i) + " has sequence " +
                                         std::to_string(items[i].sequence) + ")"});
        return;
      }
    }
  }

  // Rule 5: `at_ms` never decreases; names the first element that breaks it.
  template <typename T>
  void ordered(const char* path, const std::vector<T>& items) {
    for (size_t i = 1; i < items.size(); ++i) {
      if (items[i].atMs < items[i - 1].atMs) {
        issues.push_back(Issue{path, "timestamps must be non-decreasing (element " +
                                         std::to_string(i) + " at " +
                                         std::to_string(items[i].atMs) + " ms follows " +
                                         std::to_string(items[i - 1].atMs) + " ms)"});
        return;
      }
    }
  }

 private:
  std::vector<Issue>& issues;
};

void validateCommitments(const Capture& capture, Rules& rules) {
  const Manifest& manifest = capture.manifest;
  // Rule 1. A scenario projection without the member (or with null) never matches a hash.
  const Json& scenario = *manifest.scenario;
  auto declared = scenario.is_object() ? scenario.find("executable_sha256") : scenario.end();
  bool executableMatches = scenario.is_object() && declared != scenario.end() &&
                           declared->is_string() &&
                           declared->get_ref<const std::string&>() == manifest.executableSha256;
  rules.require(executableMatches, "manifest.executable_sha256",
                "executable commitment does not match the scenario projection");

  // Rule 2.
  struct Committed {
    const char* path;
    const std::string& declared;
    const Json& value;
  };
  const Committed committed[] = {
      {"manifest.full_scenario_sha256", manifest.fullScenarioSha256, *manifest.scenario},
      {"manifest.comparison_contract_sha256", manifest.comparisonContractSha256,
       *manifest.comparisonContract},
      {"manifest.normalization_sha256", manifest.normalizationSha256, *capture.normalization},
      {"manifest.shim_plan_sha256", manifest.shimPlanSha256, *manifest.shimPlan},
      {"manifest.replay_plan_sha256", manifest.replayPlanSha256, *manifest.replayPlan},
  };
  for (const auto& item : committed) {
    rules.require(commitment(item.value) == item.declared, item.path,
                  "commitment does not match its canonical value");
  }

  // Rule 3. An unreadable timestamp compares like JavaScript's NaN: never "not earlier".
  auto started = parseIsoTimestamp(manifest.startedAt);
  auto completed = parseIsoTimestamp(manifest.completedAt);
  rules.require(started && completed && *started <= *completed, "manifest.completed_at",
                "completion precedes start");
}

void validateOrdering(const Capture& capture, Rules& rules) {
  rules.contiguous("frames", capture.frames);
  rules.contiguous("rendered_frames", capture.renderedFrames);
  rules.contiguous("interaction_events", capture.interactionEvents);
  rules.contiguous("shim_events", capture.shimEvents);
  rules.contiguous("protocol_events", capture.protocolEvents);

  rules.ordered("frames", capture.frames);
  rules.ordered("rendered_frames", capture.renderedFrames);
  rules.ordered("process_samples", capture.processSamples);
  rules.ordered("filesystem_checkpoints", capture.filesystemCheckpoints);
  rules.ordered("shim_events", capture.shimEvents);
  rules.ordered("protocol_events", capture.protocolEvents);
}

void validateLifecycle(const Capture& capture, Rules& rules) {
  // Rule 6.
  const auto& checkpoints = capture.filesystemCheckpoints;
  std::set<std::string> seen;
  std::string duplicate;
  for (const auto& checkpoint : checkpoints) {
    if (!seen.insert(checkpoint.name).second && duplicate.empty()) duplicate = checkpoint.name;
  }
  rules.require(duplicate.empty(), "filesystem_checkpoints",
                "checkpoint names must be unique (\"" + duplicate + "\" repeats)");
  rules.require(!checkpoints.empty() && checkpoints.front().name == "before",
                "filesystem_checkpoints", "first checkpoint must be before");
  rules.require(!checkpoints.empty() && checkpoints.back().name == "after_settlement",
                "filesystem_checkpoints", "last checkpoint must be after_settlement");

  // Rule 7.
  bool checkpointTruncated = false;
  for (const auto& checkpoint : checkpoints)
    checkpointTruncated |= checkpoint.truncated;
  rules.require(!checkpointTruncated || capture.truncated, "truncated",
                "checkpoint truncation must propagate to the capture");

  // Rule 8.
  rules.require(capture.exit.reason == ExitReason::EXITED || !capture.exit.code, "exit",
                "deadline termination cannot declare a normal exit code");

  // Rule 9.
  bool quiesced = capture.settlement.state == SettlementState::QUIESCED;
  bool notRequired = capture.settlement.cleanupOutcome == CleanupOutcome::NOT_REQUIRED;
  rules.require(!quiesced || notRequired, "settlement.cleanup_outcome",
                "quiesced settlement cannot require cleanup");
  rules.require(quiesced || !notRequired, "settlement.cleanup_outcome",
                "non-quiesced settlement must report cleanup");
}

struct PlannedRoute {
  std::string command;
  int64_t routeIndex;
  double maxCalls;  // a JSON number as JavaScript sees it; 0 when missing
};

std::vector<PlannedRoute> plannedRoutes(const Json& shimPlan) {
  std::vector<PlannedRoute> out;
  if (!shimPlan.is_array()) return out;
  for (const Json& shim : shimPlan) {
    if (!shim.is_object()) continue;
    auto name = shim.find("name");
    auto routes = shim.find("routes");
    if (name == shim.end() || !name->is_string() || routes == shim.end() || !routes->is_array()) {
      continue;
    }
    for (size_t i = 0; i < routes->size(); ++i) {
      const Json& route = (*routes)[i];
      double maxCalls = 0;
      if (route.is_object()) {
        auto limit = route.find("max_calls");
        if (limit != route.end() && limit->is_number()) maxCalls = limit->get<double>();
      }
      out.push_back(PlannedRoute{name->get<std::string>(), static_cast<int64_t>(i), maxCalls});
    }
  }
  return out;
}

void validateShimEvents(const Capture& capture, Rules& rules) {
  auto routes = plannedRoutes(*capture.manifest.shimPlan);
  // Rule 10.
  for (size_t i = 0; i < capture.shimEvents.size(); ++i) {
    const ShimEvent& event = capture.shimEvents[i];
    bool ok;
    if (event.outcome == ShimOutcome::UNMATCHED) {
      ok = !event.routeIndex;
    } else {
      ok = false;
      for (const auto& route : routes) {
        ok |= event.routeIndex && route.command == event.command &&
              route.routeIndex == *event.routeIndex;
      }
    }
    std::string route = event.routeIndex ? std::to_string(*event.routeIndex) : "null";
    rules.require(ok, "shim_events",
                  "shim event has no declared route (element " + std::to_string(i) + ", " +
                      toString(event.outcome) + " \"" + event.command + "\" route_index " + route +
                      ")");
  }
  // Rule 11.
  for (const auto& route : routes) {
    int64_t matches = 0;
    for (const auto& event : capture.shimEvents) {
      matches += event.outcome == ShimOutcome::MATCHED && event.command == route.command &&
                 event.routeIndex == route.routeIndex;
    }
    rules.require(static_cast<double>(matches) <= route.maxCalls, "shim_events",
                  "matched shim events exceed the declared route max_calls (\"" + route.command +
                      "\" route " + std::to_string(route.routeIndex) + ": " +
                      std::to_string(matches) + " matched)");
  }
}

Json nullableJson(const std::optional<std::string>& value) {
  return value ? Json(*value) : Json(nullptr);
}

void validateProtocolEvents(const Capture& capture, Rules& rules) {
  // Rule 12: only `method` and `path` are compared, as JSON values (a null method matches a
  // route whose method is null, never one that lacks the member).
  const Json& replay = *capture.manifest.replayPlan;
  static const Json NO_ROUTES = Json::array();
  const Json* http = &NO_ROUTES;
  if (replay.is_object()) {
    auto found = replay.find("http");
    if (found != replay.end() && found->is_array()) http = &*found;
  }
  for (size_t i = 0; i < capture.protocolEvents.size(); ++i) {
    const ProtocolEvent& event = capture.protocolEvents[i];
    if (event.protocol != ProtocolKind::HTTP || event.direction != ProtocolDirection::REQUEST ||
        event.outcome != ProtocolOutcome::MATCHED) {
      continue;
    }
    Json method = nullableJson(event.method);
    Json path = nullableJson(event.path);
    bool declared = false;
    for (const Json& route : *http) {
      if (!route.is_object()) continue;
      auto m = route.find("method");
      auto p = route.find("path");
      declared |= m != route.end() && *m == method && p != route.end() && *p == path;
    }
    rules.require(declared, "protocol_events",
                  "matched HTTP event has no declared replay route (element " + std::to_string(i) +
                      ", " + method.dump() + " " + path.dump() + ")");
  }
}

}  // namespace

std::vector<Issue> validateCapture(const Capture& capture) {
  std::vector<Issue> issues;
  Rules rules(issues);
  validateCommitments(capture, rules);
  validateOrdering(capture, rules);
  validateLifecycle(capture, rules);
  validateShimEvents(capture, rules);
  validateProtocolEvents(capture, rules);
  return issues;
}

namespace {

CaptureParseResult validated(CaptureParseResult result) {
  if (!result.ok()) return result;
  result.issues = validateCapture(*result.capture);
  if (!result.issues.empty()) result.capture.reset();
  return result;
}

}  // namespace

CaptureParseResult importCapture(const Json& value) {
  return validated(parseCapture(value));
}

CaptureParseResult importCapture(Json&& value) {
  return validated(parseCapture(std::move(value)));
}

std::string invalidCaptureMessage(const std::vector<Issue>& issues) {
  return INVALID_CAPTURE_PREFIX + formatIssues(issues);
}

}  // namespace rea::evidence
