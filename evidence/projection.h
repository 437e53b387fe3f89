#pragma once
// The committed projections of a scenario (SPEC B §5.1–5.2 with A3): the JSON values the
// manifest embeds and hashes. `commitment(fullScenarioProjection(s, hash))` is
// `full_scenario_sha256`, `commitment(comparisonContract(s))` is `comparison_contract_sha256`,
// and so on.
//
// A3: the `data` of a sensitive input event is replaced by `<redacted-input:N-bytes>` (N = UTF-8
// bytes of the data) in both projections, so a sensitive input never reaches the Evidence. For a
// scenario without sensitive inputs the projections equal the baseline's byte for byte (A1).
// Secret environment values (names in `secret_aliases`) become `<redacted-secret>` in the full
// projection; the comparison contract has no `environment`.
//
// Errors: none (pure functions of a parsed Scenario).

#include <optional>
#include <string>

#include "evidence/json.h"

namespace rea::evidence {

struct Scenario;

extern const char REDACTED_SECRET[];  // "<redacted-secret>"

std::string redactedInputPlaceholder(const std::string& data);
// "<redacted-input:N-bytes>" with N the UTF-8 byte length of `data` (B §4.6.2, A3).

Json fullScenarioProjection(const Scenario& scenario,
                            const std::optional<std::string>& executableSha256);
// manifest.scenario: toJson(scenario) with secret values and sensitive input data redacted,
// `unknown_registry_approved` always present as a boolean, and `executable_sha256` appended
// (null when no hash is given, which real captures never do).

Json comparisonContract(const Scenario& scenario);
// manifest.comparison_contract: exactly working_directory, inherit_environment, secret_aliases,
// network_access, filesystem_roots, terminal, checkpoints, events (sensitive data redacted),
// timeout_ms, idle_timeout_ms, settle_ms, limits, normalization, command_shims, replay.

Json shimPlan(const Scenario& scenario);
// manifest.shim_plan: the parsed `command_shims` array.

Json replayPlan(const Scenario& scenario);
// manifest.replay_plan: the parsed `replay` object (an absent `request_body` stays absent).

Json normalizationJson(const Scenario& scenario);
// The parsed `normalization` object (capture `normalization`, `normalization_sha256`).

}  // namespace rea::evidence
