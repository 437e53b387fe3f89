// Fuzz target: canonical JSON and commitments (SPEC B §5.1, §5.3) on any JSON text rea could
// read (same nesting pre-scan as supervisor/cli/input-file.h, re-implemented here so the target
// needs only rea-evidence).
//
// Properties: canonicalising is stable (canonical(parse(canonical(v))) == canonical(v)), the
// canonical form is valid JSON, and commitment(v) == commitment(parse(canonical(v))). The only
// value without a canonical form is a non-finite number (JSON text like 1e400 parses to
// infinity); canonicalJson() must then throw std::invalid_argument, nothing else.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "supervisor/cli/input-file.h"
#include "evidence/canonical-json.h"
#include "evidence/commitment.h"

namespace {

using rea::evidence::Json;

void check(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "property failed: %s\n", what);
    abort();
  }
}

bool hasNonFinite(const Json& value) {
  if (value.is_number_float()) return !std::isfinite(value.get<double>());
  if (value.is_structured()) {
    for (const auto& child : value)
      if (hasNonFinite(child)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (rea::supervisor::jsonNestingDepth(text) > rea::supervisor::MAX_JSON_DEPTH) return 0;
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return 0;

  std::string canonical;
  try {
    canonical = rea::evidence::canonicalJson(value);
  } catch (const std::invalid_argument&) {
    check(hasNonFinite(value), "canonicalJson throws only for a non-finite number");
    return 0;
  }
  Json reparsed = Json::parse(canonical, nullptr, /*allow_exceptions=*/false);
  check(!reparsed.is_discarded(), "canonical form is JSON");
  std::string twice = rea::evidence::canonicalJson(reparsed);
  check(twice == canonical, "canonicalising twice is stable");
  check(rea::evidence::commitment(value) == rea::evidence::commitment(reparsed),
        "commitment equals that of the re-parsed canonical form");
  return 0;
}
