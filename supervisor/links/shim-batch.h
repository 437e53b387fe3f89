#pragma once
// The shim helper's invocation stream as ShimLink receives it (B §7.3), without I/O: each `push`
// batch and the final `done` are converted into ShimRecord and checked against the plan sent
// (sequences contiguous, timestamps ordered and never in the future, strings UTF-8 and no larger
// than one ledger request, the route the arguments match, per-route counts within max_calls,
// outcomes consistent, the protocol-event limit). Pure: the caller passes the clock reading;
// tests/fuzz/helper-messages-fuzz.c++ drives it with arbitrary messages.
//
// `readParams` reads the call's params (a Cap'n Proto getter that throws on a malformed
// message, so it runs inside the check: `[&]() { return context.getParams(); }`).
//
// Errors: none thrown (a malformed message is a broken rule too, helper-message.h); push() and
// done() return the broken rule (broken-rule.h), null when the message is fine.

#include <cstdint>
#include <kj/function.h>
#include <kj/common.h>
#include <string>
#include <vector>

#include "schema/shim.capnp.h"
#include "supervisor/links/broken-rule.h"
#include "supervisor/links/shim-link.h"

namespace rea::supervisor {

class ShimStreamCheck {
 public:
  explicit ShimStreamCheck(const ShimLaunch& launch);
  // Keeps a reference to `launch` (its shims and limits): it must outlive the check.

  kj::Maybe<BrokenRule> push(kj::FunctionParam<schema::ShimSink::PushParams::Reader()> readParams,
                             uint64_t nowNs, ShimRecord& record);
  // Appends the batch's calls to record.calls; `nowNs` is CLOCK_MONOTONIC now.

  kj::Maybe<BrokenRule> done(kj::FunctionParam<schema::ShimSink::DoneParams::Reader()> readParams,
                             ShimRecord& record);
  // The summary: checked against the calls received and the limit, then recorded.

 private:
  const ShimLaunch& launch;
  uint64_t lastAtNs;
  std::vector<std::vector<uint32_t>> matchedCounts;  // [shim][route]

  kj::Maybe<BrokenRule> check(schema::ShimInvocation::Reader event, uint64_t nowNs, size_t received,
                              ShimCall& call);
};

}  // namespace rea::supervisor
