#pragma once
// Evidence v2 records (SPEC B §4.1): the envelope `rea capture-process` prints around a capture
// and `rea compare-process-captures` prints around a comparison, their `evidence_id`, and the
// import of a capture record with the checks of §10.1 as distinct outcomes, so that the CLI can
// pick the right error (§2.4).
//
// Pure: the execution environment (platform, architecture) is passed in, nothing is read from
// the system.
//
// Errors: building throws std::invalid_argument when given a capture that fails validation or a
// value of the wrong JSON type (a bug in the caller: captures are validated before they become
// Evidence, §5.4 (i)). Parsing and importing never throw for bad input: the outcome says why.

#include <string>
#include <vector>

#include "evidence/capture.h"
#include "evidence/issue.h"
#include "evidence/json.h"

namespace rea::evidence {

constexpr int64_t EVIDENCE_SCHEMA_VERSION = 2;

extern const char PROVIDER_ID[];               // "rea-process"
extern const char PROVIDER_NAME[];             // "REA deterministic process harness"
extern const char PROVIDER_VERSION[];          // "3": the provider's version, not the capture's 4
extern const char CAPTURE_PREDICATE[];         // "rea.process-capture/v4"
extern const char LEGACY_CAPTURE_PREDICATE[];  // "rea.process-capture/v3"
extern const char COMPARISON_PREDICATE[];      // "rea.process-comparison/v3"
extern const char CAPTURE_OPERATION[];         // "capture_process_scenario"
extern const char COMPARISON_OPERATION[];      // "compare_process_captures"
extern const char ARTIFACT_IDENTITY_LIMITATION[];
// The first limitation of every record: no artifact subject is identified (`subject: null`).

struct EvidenceEnvironment {
  // Node naming, as REA writes it: {id:"linux-x64", platform:"linux", architecture:"x64",
  // isolation:"process"}.
  std::string id;
  std::string platform;
  std::string architecture;
  std::string isolation;
};

EvidenceEnvironment processEnvironment(std::string platform, std::string architecture);
// {id: "<platform>-<architecture>", platform, architecture, isolation: "process"}.

Json captureEvidenceParameters(const Json& scenario);
// {executable_name, argument_count, event_count, filesystem_root_count, checkpoint_count,
// command_shim_count, normalization} of a parsed scenario (or of its full projection, which
// carries the same members): `executable_name` is the text after the last `/` of `executable`
// as written, counts are array lengths, `normalization` is copied.

Json buildCaptureEvidence(const Capture& capture, const EvidenceEnvironment& environment);
// The capture Evidence record, members in REA's order: schema_version 2, evidence_id, subject
// null, the provider, predicate rea.process-capture/v4, operation capture_process_scenario,
// parameters from `capture.manifest.scenario`, raw_result null, normalized_result
// toJson(capture), confidence observed, authority controlled-replay, the environment,
// limitations (ARTIFACT_IDENTITY_LIMITATION then the capture's), locations [], evidence_links [].
// Throws std::invalid_argument if validateCapture(capture) finds anything.
Json buildCaptureEvidence(Capture&& capture, const EvidenceEnvironment& environment);
// The same record, moving the capture's frames into it (toJson(Capture&&)).

Json buildComparisonEvidence(const std::string& leftEvidenceId, const std::string& rightEvidenceId,
                             const Json& leftNormalization, const Json& rightNormalization,
                             const Json& comparison);
// The comparison Evidence record: predicate rea.process-comparison/v3, operation
// compare_process_captures, parameters {left_evidence_id, right_evidence_id,
// left_normalization, right_normalization}, normalized_result `comparison` (the §9 object),
// confidence derived, authority analyst-inference, environment null, limitations
// (ARTIFACT_IDENTITY_LIMITATION then `comparison.limitations`), evidence_links [left, right].

std::string computeEvidenceId(const Json& record);
// `ev_` + H(semantic projection): every member of the record except `evidence_id`, with a
// non-null `subject` reduced to {digest, format, architecture}. `record` must be an object.

// ---------------------------------------------------------------------------------------------
// Import.

enum class EvidenceFailure {
  NONE,
  ENVELOPE_VERSION,      // schema_version is not 2: Evidence v1 (or unknown) is not accepted
  ENVELOPE_SHAPE,        // the strict shape check of the envelope failed (`issues`)
  ID_MISMATCH,           // evidence_id is not the one recomputed from the record
  NOT_CURRENT_WORKFLOW,  // operation, predicate, provider id or provider version is not ours
  LEGACY_CAPTURE,        // predicate rea.process-capture/v3
  CAPTURE_INVALID,       // normalized_result fails §5.4 (legacy v3 body, shape or semantics)
};
// What the compare CLI tells the user (B §2.4, §10.1): ENVELOPE_VERSION, ENVELOPE_SHAPE,
// ID_MISMATCH and CAPTURE_INVALID → "capture evidence malformed"; NOT_CURRENT_WORKFLOW → "not
// produced by the current capture workflow"; LEGACY_CAPTURE → the legacy v3 message.

const char* toString(EvidenceFailure failure);
// "none", "envelope_version", "envelope_shape", "id_mismatch", "not_current_workflow",
// "legacy_capture", "capture_invalid".

struct EvidenceParseResult {
  EvidenceFailure failure = EvidenceFailure::NONE;
  std::string detail;         // one line saying what was wrong; empty on success
  std::vector<Issue> issues;  // envelope shape issues, or the capture's issues
  JsonBox record;  // the record as parsed (unknown nested members dropped); null on failure
  std::string evidenceId;

  bool ok() const { return failure == EvidenceFailure::NONE; }
};

EvidenceParseResult parseEvidence(const Json& value);
EvidenceParseResult parseEvidence(Json&& value);
// Any Evidence v2 record (capture or comparison): schema_version 2 (else ENVELOPE_VERSION),
// then the strict shape check of the envelope (unknown top-level members rejected; nested
// objects drop unknown members), then the id recomputed (ID_MISMATCH). The second form takes
// the record's large members out of `value` instead of copying them (a capture's frames).

struct CaptureEvidenceImport {
  EvidenceFailure failure = EvidenceFailure::NONE;
  std::string detail;
  std::vector<Issue> issues;
  std::string evidenceId;          // set when the envelope parsed
  std::optional<Capture> capture;  // set exactly on success

  bool ok() const { return failure == EvidenceFailure::NONE; }
};

CaptureEvidenceImport importCaptureEvidence(const Json& value);
CaptureEvidenceImport importCaptureEvidence(Json&& value);
// What the compare command does with each input file (§10.1): parseEvidence(); then operation
// capture_process_scenario, predicate rea.process-capture/v4, provider id rea-process and
// provider version "3" (NOT_CURRENT_WORKFLOW, or LEGACY_CAPTURE when the predicate is the v3
// one; provider name, confidence and authority are not checked); then importCapture() of
// `normalized_result` (CAPTURE_INVALID, detail = its failure message).

}  // namespace rea::evidence
