#pragma once
// The pty helper's event stream as PtyLink receives it (B §6.3-§6.6, §6.11), without I/O: each
// `push` batch and the final `done` are converted into PtyRecord and checked on the way in
// (timestamps never decrease and never lie in the future; output chunks non-empty, valid UTF-8
// and within the frame/byte limits; event indices known and reported once; one exit, consistent
// with its reason; rendered frames and replies as pty-link-render.h checks them). Pure: the
// caller passes the clock reading, and the libFuzzer target tests/fuzz/helper-messages-fuzz.c++
// drives it with arbitrary messages.
//
// `readParams` reads the call's params (a Cap'n Proto getter that throws on a malformed
// message, so it runs inside the check: `[&]() { return context.getParams(); }`).
//
// Errors: none thrown (a malformed message is a broken rule too, helper-message.h); push() and
// done() return the broken rule (broken-rule.h), null when the message is fine. After a broken rule
// the record holds what came before it and the stream must not be fed any more.

#include <cstdint>
#include <kj/function.h>
#include <optional>
#include <kj/common.h>
#include <string>
#include <vector>

#include "schema/pty.capnp.h"
#include "evidence/frame-budget.h"
#include "supervisor/links/broken-rule.h"
#include "supervisor/links/pty-link-render.h"
#include "supervisor/links/pty-link.h"
#include "supervisor/links/rendered-pack.h"

namespace rea::supervisor {

class PtyStreamCheck {
 public:
  explicit PtyStreamCheck(const PtyLaunch& launch);
  // The launch the helper was started with (its limits, events and T0).

  kj::Maybe<BrokenRule> push(kj::FunctionParam<schema::PtySink::PushParams::Reader()> readParams,
                             uint64_t nowNs, PtyRecord& record, kj::Maybe<PtyObserver&> observer);
  // Appends the batch's events to `record` in stream order (telling `observer` about each
  // output chunk, dispatch and the exit as it is accepted); `nowNs` is CLOCK_MONOTONIC now.

  kj::Maybe<BrokenRule> done(kj::FunctionParam<schema::PtySink::DoneParams::Reader()> readParams,
                             PtyRecord& record);
  // The summary: checked against what arrived, then recorded (record.streamDone).

 private:
  evidence::RawFrameBudget outputBudget;  // A15: reads past limits.frames join the last frame
  uint64_t lastAtNs;
  std::vector<bool> reported;   // [event index]: a dispatch report arrived
  std::vector<bool> waits;      // [event index]: the event waits (only it may time out)
  std::vector<bool> exitWaits;  // [event index]: it waits for the exit (dispatched at it)
  RenderedStreamCheck rendered;
  RenderedPacker packer;  // the record's frames but the newest, packed (issue 20: memory)

  kj::Maybe<BrokenRule> event(schema::PtyEvent::Reader event, uint64_t nowNs, PtyRecord& record,
                              kj::Maybe<PtyObserver&> observer);
};

}  // namespace rea::supervisor
