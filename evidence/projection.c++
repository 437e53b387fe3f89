#include "evidence/projection.h"

#include <nlohmann/json.hpp>

#include "evidence/scenario.h"

namespace rea::evidence {
namespace {

// The events array with the data of every sensitive input replaced by its placeholder (A3).
Json redactedEvents(const Scenario& scenario) {
  Json events = Json::array();
  for (const auto& event : scenario.events) {
    Json json = toJson(event);
    if (auto input = std::get_if<InputAction>(&event.action)) {
      if (input->sensitive) json["data"] = redactedInputPlaceholder(input->data);
    }
    events.push_back(std::move(json));
  }
  return events;
}

}  // namespace

const char REDACTED_SECRET[] = "<redacted-secret>";

std::string redactedInputPlaceholder(const std::string& data) {
  return "<redacted-input:" + std::to_string(data.size()) + "-bytes>";
}

Json fullScenarioProjection(const Scenario& scenario,
                            const std::optional<std::string>& executableSha256) {
  Json parsed = toJson(scenario);
  Json projection = Json::object();
  for (auto& member : parsed.items()) {
    projection[member.key()] = std::move(member.value());
    // B §5.2: forced to a boolean, kept in its table position right after `approved`.
    if (member.key() == "approved") {
      projection["unknown_registry_approved"] = scenario.unknownRegistryApproved;
    }
  }
  for (const auto& alias : scenario.secretAliases) {
    // The parser guarantees every alias is a key of `environment` (B §3.5 rule 2).
    projection["environment"][alias] = REDACTED_SECRET;
  }
  projection["events"] = redactedEvents(scenario);
  if (executableSha256) {
    projection["executable_sha256"] = *executableSha256;
  } else {
    projection["executable_sha256"] = nullptr;
  }
  return projection;
}

Json comparisonContract(const Scenario& scenario) {
  Json parsed = toJson(scenario);
  Json contract = Json::object();
  for (const char* key : {"working_directory", "inherit_environment", "secret_aliases",
                          "network_access", "filesystem_roots", "terminal", "checkpoints"}) {
    contract[key] = std::move(parsed[key]);
  }
  contract["events"] = redactedEvents(scenario);
  for (const char* key : {"timeout_ms", "idle_timeout_ms", "settle_ms", "limits", "normalization",
                          "command_shims", "replay"}) {
    contract[key] = std::move(parsed[key]);
  }
  return contract;
}

Json shimPlan(const Scenario& scenario) {
  Json plan = Json::array();
  for (const auto& shim : scenario.commandShims)
    plan.push_back(toJson(shim));
  return plan;
}

Json replayPlan(const Scenario& scenario) {
  return toJson(scenario.replay);
}

Json normalizationJson(const Scenario& scenario) {
  return toJson(scenario.normalization);
}

}  // namespace rea::evidence
