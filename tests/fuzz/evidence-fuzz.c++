// Fuzz target: importing a capture Evidence file as `rea compare-process-captures` does (SPEC B
// §10.1, §5.4): the nesting pre-scan and JSON parse of supervisor/cli/input-file.h (re-implemented
// here so the target needs only rea-evidence), then importCaptureEvidence(). Most mutations
// break the evidence id, so each input is also imported a second time with its id recomputed,
// and its capture (`normalized_result`, or the whole value) through importCapture() directly;
// that is how the fuzzer reaches the shape and semantic rules behind the id check.
//
// Importing never throws for bad input. Properties of a capture that imports:
// validateCapture() finds nothing, parseCapture(toJson(c)) == c, the Evidence built from it
// imports again to the same capture, and comparing it with itself works.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "supervisor/cli/input-file.h"
#include "evidence/capture.h"
#include "evidence/compare.h"
#include "evidence/evidence-record.h"
#include "evidence/validate.h"

namespace {

using rea::evidence::Json;

void check(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "property failed: %s\n", what);
    abort();
  }
}

void checkCapture(const rea::evidence::Capture& capture) {
  check(rea::evidence::validateCapture(capture).empty(), "an imported capture validates");
  Json form = rea::evidence::toJson(capture);
  auto again = rea::evidence::parseCapture(form);
  check(again.ok() && *again.capture == capture, "parseCapture(toJson(c)) == c");

  auto environment = rea::evidence::processEnvironment("linux", "x64");
  Json record = rea::evidence::buildCaptureEvidence(capture, environment);
  auto imported = rea::evidence::importCaptureEvidence(record);
  check(imported.ok() && *imported.capture == capture, "built Evidence imports to the capture");

  Json comparison = rea::evidence::compareCaptures(form, form);
  (void)rea::evidence::summariseComparison(comparison);
}

void importEvidence(const Json& value) {
  auto imported = rea::evidence::importCaptureEvidence(value);
  check(imported.ok() == imported.capture.has_value(), "capture set exactly on success");
  if (imported.ok()) checkCapture(*imported.capture);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (rea::supervisor::jsonNestingDepth(text) > rea::supervisor::MAX_JSON_DEPTH) return 0;
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return 0;

  importEvidence(value);

  if (value.is_object() && value.contains("evidence_id")) {
    Json fixed = value;
    bool idComputed = true;
    try {
      fixed["evidence_id"] = rea::evidence::computeEvidenceId(fixed);
    } catch (const std::invalid_argument&) {
      idComputed = false;  // a non-finite number has no canonical form (see canonical-json)
    }
    if (idComputed) importEvidence(fixed);
  }

  const Json* body = &value;
  if (value.is_object() && value.contains("normalized_result")) body = &value["normalized_result"];
  auto capture = rea::evidence::importCapture(*body);
  if (capture.ok()) {
    checkCapture(*capture.capture);
  } else {
    (void)capture.failureMessage();
  }
  return 0;
}
