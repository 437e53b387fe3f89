// Reading Evidence records (declared in evidence/evidence-record.h): the envelope's version,
// strict shape and id, then the checks the compare command applies to a capture record (SPEC B
// §4.1, §10.1), each failure its own outcome.

#include "evidence/evidence-record.h"

#include <nlohmann/json.hpp>

#include "evidence/shape-check.h"
#include "evidence/validate.h"

namespace rea::evidence {
namespace {

const char* const ENVELOPE_MEMBERS[] = {
    "schema_version", "evidence_id", "subject",     "provider",          "predicate_type",
    "operation",      "parameters",  "raw_result",  "normalized_result", "confidence",
    "authority",      "environment", "limitations", "locations",         "evidence_links"};

constexpr std::array<const char*, 3> CONFIDENCE_NAMES = {"observed", "derived", "inferred"};
constexpr std::array<const char*, 5> AUTHORITY_NAMES = {"shipped-artifact", "controlled-replay",
                                                        "historical-reference", "external-service",
                                                        "analyst-inference"};
constexpr std::array<const char*, 4> ISOLATION_NAMES = {"none", "process", "container",
                                                        "virtual-machine"};
constexpr std::array<const char*, 5> LOCATION_KINDS = {"address", "address-range", "artifact-path",
                                                       "file-offset", "file-offset-range"};

bool isEvidenceId(const Json& value) {
  if (!value.is_string()) return false;
  const auto& text = value.get_ref<const std::string&>();
  return text.size() == 67 && text.compare(0, 3, "ev_") == 0 && isSha256Hex(text.substr(3));
}

// Reads the envelope into `out` (members in REA's order, nested objects reduced to their known
// members), recording every problem.
class EnvelopeReader {
 public:
  explicit EnvelopeReader(std::vector<Issue>& issues) : check(issues) {}

  // Takes the large members (parameters, raw_result, normalized_result) out of `in`.
  void read(Json& in, Json& out) {
    for (const auto& item : in.items()) {
      bool known = false;
      for (const char* name : ENVELOPE_MEMBERS)
        known |= item.key() == name;
      if (!known) check.fail(item.key(), "is not an Evidence member");
    }
    out["schema_version"] = EVIDENCE_SCHEMA_VERSION;
    if (const Json* id = check.member(in, "", "evidence_id")) {
      if (!isEvidenceId(*id)) check.fail("evidence_id", "must be ev_ and 64 lowercase hex digits");
      out["evidence_id"] = *id;
    }
    out["subject"] = readSubject(in);
    out["provider"] = readProvider(in);
    out["predicate_type"] = check.string(in, "", "predicate_type", 1);
    out["operation"] = check.string(in, "", "operation", 1);
    if (check.objectMember(in, "", "parameters")) out["parameters"] = std::move(in["parameters"]);
    if (check.member(in, "", "raw_result")) out["raw_result"] = std::move(in["raw_result"]);
    if (check.member(in, "", "normalized_result")) {
      out["normalized_result"] = std::move(in["normalized_result"]);
    }
    out["confidence"] = CONFIDENCE_NAMES[check.choice(in, "", "confidence", CONFIDENCE_NAMES)];
    out["authority"] = AUTHORITY_NAMES[check.choice(in, "", "authority", AUTHORITY_NAMES)];
    out["environment"] = readEnvironment(in);
    out["limitations"] = check.strings(in, "", "limitations");
    out["locations"] = readLocations(in);
    Json links = Json::array();
    if (const Json* list = check.arrayMember(in, "", "evidence_links")) {
      for (size_t i = 0; i < list->size(); ++i) {
        if (!isEvidenceId((*list)[i])) {
          check.fail(indexPath("evidence_links", i), "must be ev_ and 64 lowercase hex digits");
        }
        links.push_back((*list)[i]);
      }
    }
    out["evidence_links"] = std::move(links);
  }

 private:
  ShapeCheck check;

  Json readSubject(const Json& in) {
    const Json* subject = check.member(in, "", "subject");
    if (subject == nullptr || subject->is_null()) return nullptr;
    if (!subject->is_object()) {
      check.fail("subject", "must be an object or null");
      return nullptr;
    }
    const std::string path = "subject";
    Json out = Json::object();
    out["name"] = check.string(*subject, path, "name", 1);
    Json digest = Json::object();
    if (const Json* in = check.objectMember(*subject, path, "digest")) {
      digest["sha256"] = check.sha256(*in, "subject.digest", "sha256");
    }
    out["digest"] = std::move(digest);
    out["format"] = check.string(*subject, path, "format", 1);
    auto architecture = check.nullableString(*subject, path, "architecture");
    out["architecture"] = architecture ? Json(*architecture) : Json(nullptr);
    out["local_path"] = check.string(*subject, path, "local_path");
    return out;
  }

  Json readProvider(const Json& in) {
    Json out = Json::object();
    const Json* provider = check.objectMember(in, "", "provider");
    if (provider == nullptr) return out;
    out["id"] = check.string(*provider, "provider", "id", 1);
    out["name"] = check.string(*provider, "provider", "name", 1);
    auto version = check.nullableString(*provider, "provider", "version");
    out["version"] = version ? Json(*version) : Json(nullptr);
    return out;
  }

  Json readEnvironment(const Json& in) {
    const Json* environment = check.member(in, "", "environment");
    if (environment == nullptr || environment->is_null()) return nullptr;
    if (!environment->is_object()) {
      check.fail("environment", "must be an object or null");
      return nullptr;
    }
    const std::string path = "environment";
    Json out = Json::object();
    out["id"] = check.string(*environment, path, "id", 1);
    out["platform"] = check.string(*environment, path, "platform", 1);
    out["architecture"] = check.string(*environment, path, "architecture", 1);
    out["isolation"] =
        ISOLATION_NAMES[check.choice(*environment, path, "isolation", ISOLATION_NAMES)];
    return out;
  }

  Json readLocations(const Json& in) {
    Json out = Json::array();
    const Json* list = check.arrayMember(in, "", "locations");
    if (list == nullptr) return out;
    for (size_t i = 0; i < list->size(); ++i) {
      const Json& item = (*list)[i];
      std::string path = indexPath("locations", i);
      if (!check.object(item, path)) continue;
      auto kind = check.optionalChoice(item, path, "kind", LOCATION_KINDS);
      if (!item.contains("kind")) check.fail(childPath(path, "kind"), "is required");
      if (!kind) continue;
      Json location{{"kind", LOCATION_KINDS[*kind]}};
      switch (*kind) {
        case 0:
          location["address"] = check.string(item, path, "address", 1);
          break;
        case 1:
          location["start"] = check.string(item, path, "start", 1);
          location["end"] = check.string(item, path, "end", 1);
          break;
        case 2:
          location["path"] = check.string(item, path, "path", 1);
          break;
        case 3:
          location["offset"] = check.integer(item, path, "offset", 0);
          break;
        default:
          location["start"] = check.integer(item, path, "start", 0);
          location["end"] = check.integer(item, path, "end", 0);
          break;
      }
      out.push_back(std::move(location));
    }
    return out;
  }
};

}  // namespace

const char* toString(EvidenceFailure failure) {
  switch (failure) {
    case EvidenceFailure::NONE:
      return "none";
    case EvidenceFailure::ENVELOPE_VERSION:
      return "envelope_version";
    case EvidenceFailure::ENVELOPE_SHAPE:
      return "envelope_shape";
    case EvidenceFailure::ID_MISMATCH:
      return "id_mismatch";
    case EvidenceFailure::NOT_CURRENT_WORKFLOW:
      return "not_current_workflow";
    case EvidenceFailure::LEGACY_CAPTURE:
      return "legacy_capture";
    case EvidenceFailure::CAPTURE_INVALID:
      return "capture_invalid";
  }
  return "unknown";
}

EvidenceParseResult parseEvidence(const Json& value) {
  return parseEvidence(Json(value));
}

EvidenceParseResult parseEvidence(Json&& value) {
  EvidenceParseResult result;
  if (!value.is_object()) {
    result.failure = EvidenceFailure::ENVELOPE_SHAPE;
    result.detail = "an Evidence record must be a JSON object";
    result.issues.push_back(Issue{"", "must be an object"});
    return result;
  }
  auto version = value.find("schema_version");
  if (version == value.end() || safeInteger(*version) != EVIDENCE_SCHEMA_VERSION) {
    result.failure = EvidenceFailure::ENVELOPE_VERSION;
    result.detail =
        "Evidence v1 is not accepted: only Evidence v2 records (schema_version 2) "
        "can be read";
    return result;
  }
  Json record = Json::object();
  EnvelopeReader(result.issues).read(value, record);
  if (!result.issues.empty()) {
    result.failure = EvidenceFailure::ENVELOPE_SHAPE;
    result.detail = "the Evidence envelope is malformed: " + formatIssues(result.issues);
    return result;
  }
  std::string declared = record["evidence_id"].get<std::string>();
  std::string computed = computeEvidenceId(record);
  if (declared != computed) {
    result.failure = EvidenceFailure::ID_MISMATCH;
    result.detail =
        "evidence_id " + declared + " does not match the record (computed " + computed + ")";
    return result;
  }
  result.evidenceId = std::move(declared);
  result.record = std::move(record);
  return result;
}

CaptureEvidenceImport importCaptureEvidence(const Json& value) {
  return importCaptureEvidence(Json(value));
}

CaptureEvidenceImport importCaptureEvidence(Json&& value) {
  CaptureEvidenceImport result;
  EvidenceParseResult envelope = parseEvidence(std::move(value));
  if (!envelope.ok()) {
    result.failure = envelope.failure;
    result.detail = std::move(envelope.detail);
    result.issues = std::move(envelope.issues);
    return result;
  }
  result.evidenceId = envelope.evidenceId;
  Json& record = *envelope.record;
  const auto& predicate = record["predicate_type"].get_ref<const std::string&>();
  const auto& operation = record["operation"].get_ref<const std::string&>();
  const Json& provider = record["provider"];
  bool current = operation == CAPTURE_OPERATION && predicate == CAPTURE_PREDICATE &&
                 provider["id"] == PROVIDER_ID && provider["version"] == PROVIDER_VERSION;
  if (!current) {
    if (predicate == LEGACY_CAPTURE_PREDICATE) {
      result.failure = EvidenceFailure::LEGACY_CAPTURE;
      result.detail = LEGACY_CAPTURE_MESSAGE;
    } else {
      result.failure = EvidenceFailure::NOT_CURRENT_WORKFLOW;
      result.detail = "not produced by the current capture workflow (operation " + operation +
                      ", predicate " + predicate + ", provider " + provider["id"].dump() +
                      " version " + provider["version"].dump() + ")";
    }
    return result;
  }
  // The record is ours and dropped after this: its frames are moved, not copied.
  CaptureParseResult capture = importCapture(std::move(record["normalized_result"]));
  if (!capture.ok()) {
    result.failure = EvidenceFailure::CAPTURE_INVALID;
    result.detail = capture.failureMessage();
    result.issues = std::move(capture.issues);
    return result;
  }
  result.capture = std::move(capture.capture);
  return result;
}

}  // namespace rea::evidence
