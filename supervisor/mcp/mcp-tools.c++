#include "supervisor/mcp/mcp-tools.h"

#include <nlohmann/json.hpp>

#include "evidence/capture.h"
#include "evidence/commitment.h"
#include "evidence/compare.h"
#include "evidence/evidence-record.h"
#include "supervisor/cli/capture-comparison.h"
#include "supervisor/run/capture-scenario.h"
#include "supervisor/mcp/mcp-schemas.h"

namespace rea::supervisor {
namespace {

using namespace rea::evidence;

constexpr int64_t MAX_SAFE_INTEGER = 9007199254740991;  // 2^53 - 1: a JSON number any client keeps

const char CAPTURE_DESCRIPTION[] =
    "Runs one approved command in a real pseudo-terminal, as the scenario describes (executable, "
    "arguments, working directory, timed input/resize/signal events, filesystem roots to "
    "snapshot, replayed HTTP/WebSocket, command shims), and returns the deterministic capture "
    "Evidence: terminal output, exit, filesystem effects, processes, protocol and shim events. "
    "The operator policy of the server's environment (REA_PROCESS_CAPTURE_ENABLED, "
    "REA_PROCESS_EXECUTABLE_ROOTS_JSON, REA_PROCESS_WORKING_ROOTS_JSON, "
    "REA_PROCESS_ALLOWED_ENV_JSON, REA_PROCESS_ALLOW_EXTERNAL_NETWORK) decides what may run; "
    "without it every capture is refused. The Evidence is kept in this session's ledger (the "
    "64 newest captures, at most 256 MiB) so compare_process_captures can name it by "
    "evidence_id. Reports progress when given a progressToken; notifications/cancelled stops "
    "the capture, cleans up and answers with the `cancelled` error.";

const char COMPARE_DESCRIPTION[] =
    "Compares two captures made by capture_process_scenario in this session, named by their "
    "evidence_id, and returns the comparison Evidence: the status of seven dimensions "
    "(terminal, interaction, exit, filesystem, protocol, process, shim), the overall status and "
    "the first divergence. `left`/`right` may repeat the captures (their normalized_result); "
    "they must then equal the stored ones. max_capture_age_ms refuses captures completed longer "
    "ago than that.";

Json integerSchema(const char* description) {
  return Json{{"type", "integer"},
              {"minimum", 0},
              {"maximum", MAX_SAFE_INTEGER},
              {"description", description}};
}

Json compareInputSchema() {
  Json properties = Json::object();
  properties["left_evidence_id"] = {
      {"type", "string"},
      {"description", "evidence_id of the left capture, as capture_process_scenario returned it"}};
  properties["left"] = {{"type", "object"},
                        {"description",
                         "optional: the left capture (its Evidence's normalized_result), which "
                         "must equal the one stored under left_evidence_id"}};
  properties["right_evidence_id"] = {{"type", "string"},
                                     {"description", "evidence_id of the right capture"}};
  properties["right"] = {{"type", "object"},
                         {"description",
                          "optional: the right capture, which must equal the one stored under "
                          "right_evidence_id"}};
  properties["max_capture_age_ms"] =
      integerSchema("refuse a capture completed more than this many ms ago");
  properties["timing_tolerance_ms"] = integerSchema(
      "timing deviations up to this many ms are not divergences (default max(50, 5 x "
      "time_bucket_ms))");
  properties["baseline_semantics"] = {
      {"type", "boolean"},
      {"description", "compare exactly as REA v4 does (timestamps are content)"}};
  return Json{{"type", "object"},
              {"additionalProperties", false},
              {"required", {"left_evidence_id", "right_evidence_id"}},
              {"properties", std::move(properties)}};
}

Json tool(const char* name, const char* title, const char* description, Json input, Json output) {
  // MCP wants `type: "object"` at the top of both schemas; an Evidence schema says it through
  // its `$ref` only.
  for (Json* schema : {&input, &output}) {
    if (!schema->contains("type")) (*schema)["type"] = "object";
  }
  return Json{{"name", name},
              {"title", title},
              {"description", description},
              {"inputSchema", std::move(input)},
              {"outputSchema", std::move(output)}};
}

Json textContent(std::string text) {
  return Json{{"type", "text"}, {"text", std::move(text)}};
}

// The supplied capture, when there is one, must be the stored one (B §10.2).
std::optional<CommandError> checkSupplied(const Json& arguments, const char* key,
                                          const LedgerEntry& entry) {
  auto supplied = arguments.find(key);
  if (supplied == arguments.end()) return std::nullopt;
  if (commitment(*supplied) == entry.captureSha256) return std::nullopt;
  return integrityMismatch("The `" + std::string(key) +
                           "` capture differs from the one stored under " + entry.evidenceId + ".");
}

std::vector<Issue> compareArgumentIssues(const Json& arguments) {
  std::vector<Issue> issues;
  if (!arguments.is_object()) return {{"", "must be an object"}};
  for (auto it = arguments.begin(); it != arguments.end(); ++it) {
    const std::string& key = it.key();
    const Json& value = it.value();
    if (key == "left_evidence_id" || key == "right_evidence_id") {
      if (!value.is_string()) issues.push_back({key, "must be a string"});
    } else if (key == "left" || key == "right") {
      if (!value.is_object()) issues.push_back({key, "must be an object"});
    } else if (key == "max_capture_age_ms" || key == "timing_tolerance_ms") {
      if (!value.is_number_integer() || value.get<int64_t>() < 0 ||
          value.get<int64_t>() > MAX_SAFE_INTEGER) {
        issues.push_back({key, "must be an integer from 0 to 2^53-1"});
      }
    } else if (key == "baseline_semantics") {
      if (!value.is_boolean()) issues.push_back({key, "must be a boolean"});
    } else {
      issues.push_back({key, "is not an argument of this tool"});
    }
  }
  for (const char* key : {"left_evidence_id", "right_evidence_id"}) {
    if (!arguments.contains(key)) issues.push_back({key, "is required"});
  }
  return issues;
}

}  // namespace

Json mcpTools() {
  Json scenario = bundledSchema("scenario.schema.json");
  return Json::array(
      {tool(CAPTURE_TOOL, "Capture a process scenario", CAPTURE_DESCRIPTION, std::move(scenario),
            bundledSchema("capture-evidence.schema.json")),
       tool(COMPARE_TOOL, "Compare two process captures", COMPARE_DESCRIPTION, compareInputSchema(),
            bundledSchema("comparison-evidence.schema.json"))});
}

Json toolResult(const Json& evidence, const std::vector<std::string>& notes) {
  Json content = Json::array();
  content.push_back(textContent(evidence.dump(-1, ' ', false, Json::error_handler_t::replace)));
  for (const auto& note : notes)
    content.push_back(textContent(note));
  return Json{{"content", std::move(content)}, {"structuredContent", evidence}};
}

Json toolError(const CommandError& error) {
  return Json{{"content", Json::array({textContent(error.message)})},
              {"structuredContent", Json{{"error", error.toJson()}}},
              {"isError", true}};
}

CaptureRequest readCaptureRequest(const Json& arguments) {
  CaptureRequest request;
  auto parsed = parseScenario(arguments);
  if (!parsed.scenario) {
    request.error = scenarioInvalid(parsed.issues);
    return request;
  }
  if (auto refusal = admitScenario(*parsed.scenario)) {
    request.error = std::move(*refusal);
    return request;
  }
  request.scenario = std::move(parsed.scenario);
  return request;
}

LedgerEntry ledgerEntryFor(Json evidence) {
  LedgerEntry entry;
  entry.evidenceId = evidence["evidence_id"].get<std::string>();
  entry.captureSha256 = commitment(evidence["normalized_result"]);
  entry.bytes = evidence.dump(-1, ' ', false, Json::error_handler_t::replace).size();
  entry.evidence = std::make_shared<const Json>(std::move(evidence));
  return entry;
}

std::vector<std::string> ledgerNotes(const std::string& evidenceId,
                                     const LedgerAdmission& admission) {
  std::vector<std::string> notes;
  if (admission.stored) {
    notes.push_back("Stored in this session's ledger as " + evidenceId +
                    " (compare_process_captures can name it).");
  } else {
    notes.push_back(
        "Not stored in this session's ledger: the Evidence alone is larger than its "
        "256 MiB bound, so compare_process_captures cannot name " +
        evidenceId + ".");
  }
  for (const auto& id : admission.evicted) {
    notes.push_back(
        "Evicted from the ledger (it keeps the 64 newest captures, at most 256 MiB): " + id + ".");
  }
  return notes;
}

Json compareProcessCaptures(const Json& arguments, const McpLedger& ledger, int64_t nowEpochMs) {
  auto issues = compareArgumentIssues(arguments);
  if (!issues.empty()) return toolError(toolArgumentsInvalid(COMPARE_TOOL, issues));

  std::shared_ptr<const LedgerEntry> entries[2];
  const char* idKeys[2] = {"left_evidence_id", "right_evidence_id"};
  const char* captureKeys[2] = {"left", "right"};
  CaptureEvidenceFile imported[2];
  for (int side = 0; side < 2; ++side) {
    std::string id = arguments[idKeys[side]].get<std::string>();
    entries[side] = ledger.find(id);
    if (!entries[side]) {
      return toolError(integrityMismatch(
          "This session holds no capture with the Evidence id given as " +
          std::string(idKeys[side]) + " (never captured here, or evicted from the ledger since)."));
    }
    if (auto error = checkSupplied(arguments, captureKeys[side], *entries[side])) {
      return toolError(*error);
    }
    auto import = importCaptureEvidence(*entries[side]->evidence);
    if (!import.ok()) {
      return toolError(integrityMismatch("The stored capture " + entries[side]->evidenceId +
                                         " no longer passes its validation."));
    }
    imported[side].evidenceId = import.evidenceId;
    imported[side].capture = std::move(*import.capture);
  }

  std::optional<int64_t> maxAge;
  if (arguments.contains("max_capture_age_ms")) {
    maxAge = arguments["max_capture_age_ms"].get<int64_t>();
  }
  if (auto refusal =
          comparisonRefusal(imported[0].capture, imported[1].capture, maxAge, nowEpochMs)) {
    return toolError(integrityMismatch(*refusal));
  }
  CompareOptions options;
  if (arguments.contains("baseline_semantics")) {
    options.baselineSemantics = arguments["baseline_semantics"].get<bool>();
  }
  if (arguments.contains("timing_tolerance_ms")) {
    options.timingToleranceMs = arguments["timing_tolerance_ms"].get<int64_t>();
  }
  try {
    Json comparison =
        compareCaptures(toJson(imported[0].capture), toJson(imported[1].capture), options);
    Json evidence = buildComparisonEvidence(imported[0].evidenceId, imported[1].evidenceId,
                                            *imported[0].capture.normalization,
                                            *imported[1].capture.normalization, comparison);
    return toolResult(evidence, {});
  } catch (const std::exception&) {
    // The exception's text stays here: it may quote capture content (B §2.4).
    return toolError(integrityMismatch("The two captures could not be compared."));
  }
}

}  // namespace rea::supervisor
