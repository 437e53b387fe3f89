#pragma once
// The sampler alone: `rea-sampler --standalone request.json`. It starts the command itself the
// way the pty helper would (a new session, inside the capture cgroup when there is one, with
// REA_PROCESS_RUN_ID in its environment, stdio /dev/null), observes it and prints JSON lines:
//   {"event":"prepared","mode":"exact|sampled","cgroupPath":"...","sampledReason":"..."}
//   {"event":"spawned","rootPid":N}
//   {"event":"sample","atNs":N,"pid":N,"ppid":N,"pgid":N|null,"sid":N|null,"command":"..."}
//   {"event":"settled","state":"quiesced|alive_at_deadline|unverifiable","elapsedMs":N}
//   {"event":"stopped","partial":B,"recorded":N}
//   {"event":"cleaned","complete":B,"problem":"...","signalled":N,"unowned":N}
// Request: {"command":["sh","-c","..."], "runToken":"<uuid>", "maxProcesses":1000,
//           "forceSampled":false, "settleMs":100}.
//
// Errors: a malformed request throws FAILED naming the field.

#include <kj/async.h>

#include "evidence/json.h"
#include "helpers/common/helper-main.h"

namespace rea::helper {

kj::Promise<void> runSamplerStandalone(HelperContext& context, const evidence::Json& request,
                                       JsonLines& out);

}  // namespace rea::helper
