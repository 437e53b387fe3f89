#pragma once
// The replay helper alone: `rea-replay --standalone request.json`. The request is
//   {"replay": {...the scenario's replay...}, "limits": {...}, "loopbackNetns": false,
//    "serveMs": 10000}
// The server listens on 127.0.0.1 for `serveMs` (default 10000), then closes; printed lines:
//   {"event":"listening","port":N,"httpUrl":"...","websocketUrl":"...","originNs":N}
//   {"event":"protocol","sequence":N,"atNs":N,"protocol":"http","direction":"request",
//    "method":"GET"|null,"path":"/x","data":"...","outcome":"matched"}
//   {"event":"done","droppedEvents":N,"bodyOverLimit":B,"connectionCap":B,"diagnostics":[...]}
//
// `replay` and `limits` are in the scenario's JSON form and validated as the scenario parser does
// (helpers/common/standalone-plan.h).
//
// Errors: a malformed request throws FAILED naming the member or the scenario rule it breaks.

#include <kj/async.h>

#include "evidence/json.h"
#include "helpers/common/helper-main.h"
#include "helpers/replay/protocol-recorder.h"
#include "helpers/replay/replay-job.h"

namespace rea::helper {

ReplayPlan replayPlanFromJson(const evidence::Json& replay);
// A scenario's `replay` object as the typed plan a ReplayConfig would carry, validated by the
// scenario parser. Also how tests write plans. Throws FAILED naming the first issue.

ReplayJobConfig replayJobConfigFromJson(const evidence::Json& request);
// The request's members above but `serveMs`. Throws FAILED naming the first malformed member.

evidence::Json protocolEventToJson(const ProtocolEvent& event);

kj::Promise<void> runReplayStandalone(HelperContext& context, const evidence::Json& request,
                                      JsonLines& out);

}  // namespace rea::helper
