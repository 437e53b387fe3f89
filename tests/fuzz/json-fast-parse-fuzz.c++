// Fuzz target: the fast JSON parser of rea's input files (supervisor/cli/json-fast-parse.h),
// against nlohmann's. The fast parser may decline anything (the caller then asks nlohmann), but
// whatever it accepts nlohmann must accept with the same value: the same kinds of numbers and
// the same members in the same order. That is what keeps every result and error of the file
// reading unchanged.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "supervisor/cli/json-fast-parse.h"
#include "tests/json-same.h"

namespace {

using rea::evidence::Json;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fast = rea::supervisor::parseJsonFast(text, 64);
  if (!fast) return 0;
  Json slow;
  try {
    slow = Json::parse(text);
  } catch (const Json::parse_error&) {
    fprintf(stderr, "property failed: the fast parser accepted what nlohmann rejects\n");
    abort();
  }
  if (!rea::test::sameJson(*fast, slow)) {
    fprintf(stderr, "property failed: the fast parser read another value than nlohmann\n");
    abort();
  }
  return 0;
}
