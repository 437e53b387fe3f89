// Building Evidence records and computing their ids (declared in evidence/evidence-record.h).
// Parsing and importing them is evidence-import.c++.

#include "evidence/evidence-record.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "evidence/canonical-json.h"
#include "evidence/commitment.h"
#include "evidence/sha256.h"
#include "evidence/validate.h"

namespace rea::evidence {

const char PROVIDER_ID[] = "rea-process";
const char PROVIDER_NAME[] = "REA deterministic process harness";
const char PROVIDER_VERSION[] = "3";
const char CAPTURE_PREDICATE[] = "rea.process-capture/v4";
const char LEGACY_CAPTURE_PREDICATE[] = "rea.process-capture/v3";
const char COMPARISON_PREDICATE[] = "rea.process-comparison/v3";
const char CAPTURE_OPERATION[] = "capture_process_scenario";
const char COMPARISON_OPERATION[] = "compare_process_captures";
const char ARTIFACT_IDENTITY_LIMITATION[] =
    "Artifact identity is unavailable for this observation.";

namespace {

Json providerJson() {
  return Json{{"id", PROVIDER_ID}, {"name", PROVIDER_NAME}, {"version", PROVIDER_VERSION}};
}

// The record with its members in REA's printed order; evidence_id is filled in last.
Json assemble(const char* predicate, const char* operation, Json parameters, Json result,
              const char* confidence, const char* authority, Json environment,
              const std::vector<std::string>& limitations, Json links) {
  Json allLimitations = Json::array({ARTIFACT_IDENTITY_LIMITATION});
  for (const auto& limitation : limitations)
    allLimitations.push_back(limitation);
  Json record = Json::object();
  record["schema_version"] = EVIDENCE_SCHEMA_VERSION;
  record["evidence_id"] = "";
  record["subject"] = nullptr;
  record["provider"] = providerJson();
  record["predicate_type"] = predicate;
  record["operation"] = operation;
  record["parameters"] = std::move(parameters);
  record["raw_result"] = nullptr;
  record["normalized_result"] = std::move(result);
  record["confidence"] = confidence;
  record["authority"] = authority;
  record["environment"] = std::move(environment);
  record["limitations"] = std::move(allLimitations);
  record["locations"] = Json::array();
  record["evidence_links"] = std::move(links);
  record["evidence_id"] = computeEvidenceId(record);
  return record;
}

const Json& requireMember(const Json& object, const char* key, const char* what) {
  if (!object.is_object() || !object.contains(key)) {
    throw std::invalid_argument(std::string(what) + " has no member " + key);
  }
  return object.at(key);
}

int64_t arrayLength(const Json& scenario, const char* key) {
  const Json& list = requireMember(scenario, key, "scenario");
  if (!list.is_array())
    throw std::invalid_argument(std::string("scenario.") + key + " is no array");
  return static_cast<int64_t>(list.size());
}

// The capture record around `result()`, the capture's JSON form, which is made after
// everything else was read from `capture` (the moving form leaves it without frames).
template <typename MakeResult>
Json captureRecord(const Capture& capture, MakeResult&& result,
                   const EvidenceEnvironment& environment) {
  auto issues = validateCapture(capture);
  if (!issues.empty()) throw std::invalid_argument(invalidCaptureMessage(issues));
  Json environmentJson{{"id", environment.id},
                       {"platform", environment.platform},
                       {"architecture", environment.architecture},
                       {"isolation", environment.isolation}};
  Json parameters = captureEvidenceParameters(*capture.manifest.scenario);
  std::vector<std::string> limitations = capture.limitations;
  return assemble(CAPTURE_PREDICATE, CAPTURE_OPERATION, std::move(parameters), result(), "observed",
                  "controlled-replay", std::move(environmentJson), limitations, Json::array());
}

}  // namespace

EvidenceEnvironment processEnvironment(std::string platform, std::string architecture) {
  EvidenceEnvironment environment;
  environment.id = platform + "-" + architecture;
  environment.platform = std::move(platform);
  environment.architecture = std::move(architecture);
  environment.isolation = "process";
  return environment;
}

Json captureEvidenceParameters(const Json& scenario) {
  const Json& executable = requireMember(scenario, "executable", "scenario");
  if (!executable.is_string()) throw std::invalid_argument("scenario.executable is no string");
  const auto& path = executable.get_ref<const std::string&>();
  auto slash = path.rfind('/');
  return Json{{"executable_name", slash == std::string::npos ? path : path.substr(slash + 1)},
              {"argument_count", arrayLength(scenario, "arguments")},
              {"event_count", arrayLength(scenario, "events")},
              {"filesystem_root_count", arrayLength(scenario, "filesystem_roots")},
              {"checkpoint_count", arrayLength(scenario, "checkpoints")},
              {"command_shim_count", arrayLength(scenario, "command_shims")},
              {"normalization", requireMember(scenario, "normalization", "scenario")}};
}

Json buildCaptureEvidence(const Capture& capture, const EvidenceEnvironment& environment) {
  return captureRecord(
      capture, [&capture]() { return toJson(capture); }, environment);
}

Json buildCaptureEvidence(Capture&& capture, const EvidenceEnvironment& environment) {
  return captureRecord(
      capture, [&capture]() { return toJson(std::move(capture)); }, environment);
}

Json buildComparisonEvidence(const std::string& leftEvidenceId, const std::string& rightEvidenceId,
                             const Json& leftNormalization, const Json& rightNormalization,
                             const Json& comparison) {
  std::vector<std::string> limitations;
  const Json& list = requireMember(comparison, "limitations", "comparison");
  if (!list.is_array()) throw std::invalid_argument("comparison.limitations is no array");
  for (const Json& item : list) {
    if (!item.is_string()) throw std::invalid_argument("comparison.limitations holds a non-string");
    limitations.push_back(item.get<std::string>());
  }
  Json parameters{{"left_evidence_id", leftEvidenceId},
                  {"right_evidence_id", rightEvidenceId},
                  {"left_normalization", leftNormalization},
                  {"right_normalization", rightNormalization}};
  return assemble(COMPARISON_PREDICATE, COMPARISON_OPERATION, std::move(parameters), comparison,
                  "derived", "analyst-inference", nullptr, limitations,
                  Json::array({leftEvidenceId, rightEvidenceId}));
}

std::string computeEvidenceId(const Json& record) {
  if (!record.is_object()) throw std::invalid_argument("an Evidence record must be an object");
  // The projection refers to the record's members instead of copying them (a capture record
  // holds every frame): only a reduced subject is built anew.
  std::vector<std::pair<std::string_view, const Json*>> projection;
  Json subject = Json::object();
  for (auto it = record.begin(); it != record.end(); ++it) {
    const std::string& key = it.key();
    const Json& value = *it;
    if (key == "evidence_id") continue;
    if (key == "subject" && value.is_object()) {
      // The subject's name and local path are where the artifact lay, not what it is.
      for (const char* kept : {"digest", "format", "architecture"}) {
        if (value.contains(kept)) subject[kept] = value.at(kept);
      }
      projection.emplace_back(key, &subject);
    } else {
      projection.emplace_back(key, &value);
    }
  }
  Sha256 hash;
  canonicalObjectTo(std::move(projection), [&hash](std::string_view piece) { hash.update(piece); });
  return "ev_" + hash.finishHex();
}

}  // namespace rea::evidence
