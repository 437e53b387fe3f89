// Fuzz target: the body of a shim client's `POST /invoke` (SPEC B §7.2-7.3), the one request
// parser of bytes that come from inside the target: parseShimInvocation(), then, for a body
// that parses, the ledger's matching and recording (ShimLedger::invoke) against a small plan,
// which must answer MATCHED, UNMATCHED or EXHAUSTED and never throw.
//
// Property: a body that parses holds valid UTF-8 only (ill-formed input becomes U+FFFD).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "evidence/utf.h"
#include "helpers/shim/shim-invocation.h"
#include "helpers/shim/shim-ledger.h"
#include "helpers/shim/shim-plan.h"
#include "helpers/shim/standalone.h"

namespace {

void check(bool condition, const char* what) {
  if (!condition) {
    fprintf(stderr, "property failed: %s\n", what);
    abort();
  }
}

const char PLAN[] = R"([
  {"name": "git", "routes": [
    {"arguments": ["status", "--short"], "outputs": [{"at_ms": 0, "stream": "stdout",
     "data": " M file\n"}], "termination": {"type": "exit", "code": 0}, "max_calls": 2},
    {"arguments": [], "termination": {"type": "signal", "signal": "SIGTERM"}}]},
  {"name": "curl", "routes": [{"arguments": ["-s", "http://x"],
   "termination": {"type": "exit", "code": 7}}]}
])";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto invocation = rea::helper::parseShimInvocation(body);
  if (!invocation) return 0;
  check(rea::evidence::isValidUtf8(invocation->command), "command is UTF-8");
  check(rea::evidence::isValidUtf8(invocation->workingDirectory), "working_directory is UTF-8");
  for (const auto& argument : invocation->arguments)
    check(rea::evidence::isValidUtf8(argument), "arguments are UTF-8");

  static const rea::helper::ShimPlan plan =
      rea::helper::shimPlanFromJson(rea::evidence::Json::parse(PLAN));
  rea::helper::ShimLedger ledger(plan, 2);
  // Three calls: the third of a matched route with max_calls 2 is exhausted.
  for (uint64_t at = 0; at < 3; ++at) {
    auto answer = ledger.invoke(*invocation, at);
    check(answer.outcome == rea::helper::ShimOutcome::MATCHED ||
              answer.outcome == rea::helper::ShimOutcome::UNMATCHED ||
              answer.outcome == rea::helper::ShimOutcome::EXHAUSTED,
          "a known outcome");
  }
  check(ledger.events().size() == 2 && ledger.truncated(), "the event limit holds");
  return 0;
}
