#pragma once
// The shim helper alone: `rea-shim --standalone request.json`. The request is
// {"commandShims":[...], "shimsDirectory":"...", "clientPath":"...", "protocolEventLimit":N,
//  "serveMs":N} (see shimJobConfigFromJson); the shim files are written into shimsDirectory, the
// ledger serves for serveMs milliseconds (default 10,000) and the events are printed as JSON
// lines:
//   {"event":"listening","port":N,"url":"http://127.0.0.1:N/invoke"}
//   {"event":"invocation","sequence":N,"atNs":N,"command":"...","arguments":[...],
//    "workingDirectory":"...","routeIndex":N|null,"outcome":"matched|unmatched|exhausted"}
//   {"event":"done","truncated":B,"droppedCount":N}
//
// Errors: a malformed request throws FAILED naming the field (exit 1).

#include <kj/async.h>

#include "evidence/json.h"
#include "helpers/common/helper-main.h"

namespace rea::helper {

kj::Promise<void> runShimStandalone(HelperContext& context, const evidence::Json& request,
                                    JsonLines& out);

}  // namespace rea::helper
