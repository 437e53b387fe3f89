#pragma once
// The replay helper's protocol-event stream as ReplayLink receives it (B §4.3, §8), without
// I/O: each `push` batch and the final `done` are converted into ReplayRecord and checked on the
// way in (contiguous sequences, timestamps ordered and never before the origin or in the future,
// known enums, UTF-8 bounded data, request bodies only as placeholders, matched requests on
// declared routes, WebSocket events only as B §8.3 makes them, a summary consistent with the
// limit, diagnostics only the helper's own sentences). Pure: the caller passes the clock
// reading; tests/fuzz/helper-messages-fuzz.c++ drives it with arbitrary messages.
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

#include "schema/replay.capnp.h"
#include "supervisor/links/broken-rule.h"
#include "supervisor/links/replay-link.h"

namespace rea::supervisor {

class ReplayStreamCheck {
 public:
  explicit ReplayStreamCheck(const ReplayLaunch& launch) : launch(launch) {}
  // Keeps a reference to `launch` (its routes and limits): it must outlive the check.

  void origin(uint64_t originNs) { lastAtNs = originNs; }
  // The recorder's clock origin, once start answered: no event is older.

  kj::Maybe<BrokenRule> push(kj::FunctionParam<schema::ReplaySink::PushParams::Reader()> readParams,
                             uint64_t nowNs, ReplayRecord& record);
  // Appends the batch's events to record.events; `nowNs` is CLOCK_MONOTONIC now.

  kj::Maybe<BrokenRule> done(kj::FunctionParam<schema::ReplaySink::DoneParams::Reader()> readParams,
                             ReplayRecord& record);
  // The summary: checked, then recorded (record.streamDone, the flags and the diagnostics).

 private:
  const ReplayLaunch& launch;
  uint64_t lastAtNs = 0;

  kj::Maybe<BrokenRule> event(schema::ProtocolEvent::Reader event, uint64_t nowNs, size_t received,
                              ReplayEvent& e);
};

}  // namespace rea::supervisor
