#pragma once
// The capture policy check: one step that decides whether the operator policy admits a capture
// request. It runs the checks of SPEC B §2.2 gate 2, in that order, first failure wins:
//   1. capture disabled;
//   2. network_access "host" without REA_PROCESS_ALLOW_EXTERNAL_NETWORK ("loopback", A9, needs
//      no approval: the target gets a private network namespace with only `lo`);
//   3. executable outside the executable roots;
//   4. working directory outside the working roots;
//   5. an explicit or inherited environment name not allowed;
//   6. a filesystem root outside the working roots.
// Each path check demands BOTH lexical containment (gate 2: the path as written, `.`/`..`
// resolved) and canonical containment (gates 1 and 3: realpath of the path inside the realpath
// of a root), so neither `/bin/sh` under roots ["/usr/bin"] nor a symlink inside a root that
// points outside it passes. Either failure is the same permission_required denial for that
// check; the message names the canonical path when only the symlink led outside.
//
// Errors: returns the CommandError; throws nothing. A request path that cannot be canonicalised
// (missing) is a process_capture_failed error naming the scenario field (gate 3's class).

#include <optional>
#include <string>
#include <vector>

#include "evidence/error.h"
#include "evidence/network-access.h"
#include "evidence/path.h"
#include "evidence/policy-config.h"

namespace rea::evidence {

struct PolicyRequest {
  // What a scenario asks for, independent of the scenario type. Paths are absolute, as the
  // scenario schema requires (a relative one is never inside a root).
  std::string executable;
  std::string workingDirectory;
  std::vector<std::string> filesystemRoots;
  std::vector<std::string> environmentNames;  // explicit names first, then inherited ones
  NetworkAccess networkAccess = NetworkAccess::HOST;
};

std::optional<CommandError> checkPolicy(const OperatorPolicy& policy, const PolicyRequest& request,
                                        const PathResolver& resolver = systemPathResolver());
// nullopt when every check passes; otherwise the error of the first failing check.
// Canonicalises request paths with `resolver` (configured roots were canonicalised at load).

}  // namespace rea::evidence
