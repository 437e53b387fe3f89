#pragma once
// The pty helper alone: `rea-pty --standalone request.json`. The request is PtyConfig as JSON
// (camelCase field names, see README.md); the events are printed as JSON lines:
//   {"event":"spawned","atNs":N,"rootPid":N}
//   {"event":"output","atNs":N,"data":"..."}
//   {"event":"dispatched","atNs":N,"eventIndex":N,"outcome":"dispatched|failed|targetExited"}
//   {"event":"exited","atNs":N,"code":N|null,"signal":N|null,"reason":"exited|timeout|idleTimeout"}
//   {"event":"rendered","atNs":N,"columns":N,"rows":N,"cursorX":N,"cursorY":N,
//    "activeBuffer":"normal|alternate","lines":[...],"serializedState":"..."}
//   {"event":"replied","atNs":N,"query":"DSR-cursor","reply":"..."}
//   {"event":"done","truncated":B,"droppedCount":N,"renderTruncated":B,"renderedFrames":N}
// After the exit it keeps draining until EOF, at most DRAIN_AFTER_EXIT, then finishes.
//
// Errors: ptyJobConfigFromJson throws FAILED naming the first malformed field.

#include <kj/async.h>
#include <kj/time.h>

#include "evidence/json.h"
#include "helpers/common/helper-main.h"
#include "helpers/pty/pty-job.h"

namespace rea::helper {

PtyJobConfig ptyJobConfigFromJson(const evidence::Json& request);
// Missing fields take PtyJobConfig's defaults (t0Ns: the start); "events" entries are
// {"atMs":N, "input":"..."} | {"atMs":N, "resize":{"columns":N,"rows":N}} | {"atMs":N,"signal":N}.

evidence::Json ptyJobEventToJson(const PtyJobEvent& event);

kj::Promise<void> runPtyStandalone(HelperContext& context, const evidence::Json& request,
                                   JsonLines& out);

constexpr kj::Duration DRAIN_AFTER_EXIT = 1 * kj::SECONDS;

}  // namespace rea::helper
