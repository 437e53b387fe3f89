#pragma once
// The sampler helper's sample stream as SamplerLink receives it (A8, B §6.8), without I/O: each
// `push` batch and the final `done` are converted into SamplerRecord and checked on the way in
// (sample times never decrease and never lie in the future, ids in range, commands bounded, no
// more samples than limits.processes, a done whose count matches). Pure: the caller passes the
// clock reading; tests/fuzz/helper-messages-fuzz.c++ drives it with arbitrary messages.
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

#include "schema/sampler.capnp.h"
#include "supervisor/links/broken-rule.h"
#include "supervisor/links/sampler-link.h"

namespace rea::supervisor {

class SamplerStreamCheck {
 public:
  explicit SamplerStreamCheck(uint32_t maxProcesses) : maxProcesses(maxProcesses) {}
  // limits.processes of the capture.

  kj::Maybe<BrokenRule> push(
      kj::FunctionParam<schema::SamplerSink::PushParams::Reader()> readParams, uint64_t nowNs,
      SamplerRecord& record);
  // Appends the batch's samples to record.samples; `nowNs` is CLOCK_MONOTONIC now.

  kj::Maybe<BrokenRule> done(
      kj::FunctionParam<schema::SamplerSink::DoneParams::Reader()> readParams,
      SamplerRecord& record);
  // The end of the stream: sets record.streamDone and record.partial.

 private:
  uint32_t maxProcesses;
  uint64_t lastAtNs = 0;
};

}  // namespace rea::supervisor
