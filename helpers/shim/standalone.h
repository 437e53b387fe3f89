#pragma once
// The shim helper alone: `rea-shim --standalone request.json`. The request is
// {"commandShims":[...], "shimsDirectory":"...", "clientPath":"...", "protocolEventLimit":N,
//  "serveMs":N} (see shimJobConfigFromJson), `commandShims` in the scenario's JSON form; the
// shim files are written into shimsDirectory, the ledger serves for serveMs milliseconds
// (default 10,000) and the events are printed as JSON lines:
//   {"event":"listening","port":N,"url":"http://127.0.0.1:N/invoke"}
//   {"event":"invocation","sequence":N,"atNs":N,"command":"...","arguments":[...],
//    "workingDirectory":"...","routeIndex":N|null,"outcome":"matched|unmatched|exhausted"}
//   {"event":"done","truncated":B,"droppedCount":N}
//
// Errors: a malformed request throws FAILED naming the field, or the scenario rule a command
// shim breaks (exit 1).

#include <kj/async.h>

#include "evidence/json.h"
#include "helpers/common/helper-main.h"
#include "helpers/shim/shim-job.h"
#include "helpers/shim/shim-plan.h"

namespace rea::helper {

ShimPlan shimPlanFromJson(const evidence::Json& commandShims);
// A scenario's `command_shims` array, validated by the scenario parser (standalone-plan.h), as
// the typed plan a ShimConfig would carry. Also how tests write plans. Throws FAILED naming the
// first issue.

ShimJobConfig shimJobConfigFromJson(const evidence::Json& request);
// The request's members above but `serveMs`. Throws FAILED naming the first malformed field.

kj::Promise<void> runShimStandalone(HelperContext& context, const evidence::Json& request,
                                    JsonLines& out);

}  // namespace rea::helper
