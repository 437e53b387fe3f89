#pragma once
// Gate 1 of SPEC B §2.2, the permission ceiling: the operator policy as one ceiling of
// capability `process_capture` (roots = working roots, executables = executable roots,
// environment names = the allowed list, network = `external` when external network is allowed,
// mount false), the scenario's request canonicalised, and every part of the request the ceiling
// does not cover listed. A denial is the `permission_required` error whose `details` a script
// can act on: `{capability, requested, missing, ceiling}` (`ceiling: null` when capture is
// disabled: no ceiling exists then).
//
// Deviation, from A9: `"network_access": "loopback"` needs no approval, so the ceiling's network
// is `loopback` (not `none`) when external network is not allowed, and a loopback request is
// `loopback`.
//
// Errors: returns the CommandError; throws nothing. A request path that cannot be canonicalised
// (missing) is `unreadable_output`, as B §2.4 says for gate 1.

#include <optional>

#include "evidence/error.h"
#include "evidence/path.h"
#include "evidence/policy-check.h"
#include "evidence/policy-config.h"

namespace rea::evidence {

std::optional<CommandError> checkPermissionCeiling(
    const OperatorPolicy& policy, const PolicyRequest& request,
    const PathResolver& resolver = systemPathResolver());
// nullopt when the ceiling covers the request.

}  // namespace rea::evidence
