#include "evidence/policy-check.h"

#include <algorithm>

namespace rea::evidence {

namespace {

bool lexicallyWithinAny(const std::string& lexical, const std::vector<PolicyRoot>& roots) {
  return std::any_of(roots.begin(), roots.end(), [&lexical](const PolicyRoot& root) {
    return isWithinPath(lexical, root.lexical);
  });
}

bool canonicallyWithinAny(const std::string& canonical, const std::vector<PolicyRoot>& roots) {
  return std::any_of(roots.begin(), roots.end(), [&canonical](const PolicyRoot& root) {
    return isWithinPath(canonical, root.canonical);
  });
}

std::optional<CommandError> checkLexically(const std::string& path,
                                           const std::vector<PolicyRoot>& roots,
                                           PolicyDenial denial) {
  // A relative path normalises to a relative string, which no absolute root contains.
  if (!lexicallyWithinAny(normalizePath(path), roots)) return policyDenied(denial, path);
  return std::nullopt;
}

std::optional<CommandError> checkCanonically(const std::string& path, const std::string& field,
                                             const std::vector<PolicyRoot>& roots,
                                             PolicyDenial denial, const PathResolver& resolver) {
  // Lexically inside: now make sure no symlink along the way leads out.
  ResolvedPath resolved = resolver.realPath(path);
  if (!resolved.path) {
    return processCaptureFailed("The scenario's " + field + " `" + path + "` " +
                                describePathError(resolved.errorNumber) + ".");
  }
  std::string canonical = normalizePath(*resolved.path);
  if (!canonicallyWithinAny(canonical, roots)) return policyDenied(denial, path, canonical);
  return std::nullopt;
}

}  // namespace

std::optional<CommandError> checkPolicy(const OperatorPolicy& policy, const PolicyRequest& request,
                                        const PathResolver& resolver) {
  // Gate 2 (B §2.2): every lexical check, in the baseline's order, before any path is resolved,
  // so the first failing check is reported whatever the state of the filesystem.
  if (!policy.captureEnabled) return policyDenied(PolicyDenial::CAPTURE_DISABLED);

  if (request.networkAccess == NetworkAccess::HOST && !policy.allowExternalNetwork) {
    return policyDenied(PolicyDenial::HOST_NETWORK_NOT_APPROVED);
  }
  if (auto error = checkLexically(request.executable, policy.executableRoots,
                                  PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS)) {
    return error;
  }
  if (auto error = checkLexically(request.workingDirectory, policy.workingRoots,
                                  PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS)) {
    return error;
  }
  for (const std::string& name : request.environmentNames) {
    if (std::find(policy.allowedEnvironment.begin(), policy.allowedEnvironment.end(), name) ==
        policy.allowedEnvironment.end()) {
      return policyDenied(PolicyDenial::ENVIRONMENT_NOT_ALLOWED, name);
    }
  }
  for (const std::string& root : request.filesystemRoots) {
    if (auto error = checkLexically(root, policy.workingRoots,
                                    PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS)) {
      return error;
    }
  }

  // Gate 3, made one step with gate 2's messages: the canonical path must stay inside the
  // canonical root, so a symlink cannot lead out of a root (a missing path is a capture failure).
  if (auto error = checkCanonically(request.executable, "executable", policy.executableRoots,
                                    PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS, resolver)) {
    return error;
  }
  if (auto error =
          checkCanonically(request.workingDirectory, "working_directory", policy.workingRoots,
                           PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS, resolver)) {
    return error;
  }
  for (size_t i = 0; i < request.filesystemRoots.size(); ++i) {
    if (auto error = checkCanonically(request.filesystemRoots[i], indexPath("filesystem_roots", i),
                                      policy.workingRoots,
                                      PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS, resolver)) {
      return error;
    }
  }
  return std::nullopt;
}

}  // namespace rea::evidence
