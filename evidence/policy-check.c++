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

std::optional<CommandError> checkPath(const std::string& path, const std::string& field,
                                      const std::vector<PolicyRoot>& roots, PolicyDenial denial,
                                      const PathResolver& resolver) {
  // A relative path normalises to a relative string, which no absolute root contains.
  if (!lexicallyWithinAny(normalizePath(path), roots)) return policyDenied(denial, path);

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
  if (!policy.captureEnabled) return policyDenied(PolicyDenial::CAPTURE_DISABLED);

  if (request.networkAccess == NetworkAccess::HOST && !policy.allowExternalNetwork) {
    return policyDenied(PolicyDenial::HOST_NETWORK_NOT_APPROVED);
  }

  if (auto error = checkPath(request.executable, "executable", policy.executableRoots,
                             PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS, resolver)) {
    return error;
  }

  if (auto error = checkPath(request.workingDirectory, "working_directory", policy.workingRoots,
                             PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS, resolver)) {
    return error;
  }

  for (const std::string& name : request.environmentNames) {
    if (std::find(policy.allowedEnvironment.begin(), policy.allowedEnvironment.end(), name) ==
        policy.allowedEnvironment.end()) {
      return policyDenied(PolicyDenial::ENVIRONMENT_NOT_ALLOWED, name);
    }
  }

  for (size_t i = 0; i < request.filesystemRoots.size(); ++i) {
    if (auto error =
            checkPath(request.filesystemRoots[i], indexPath("filesystem_roots", i),
                      policy.workingRoots, PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS, resolver)) {
      return error;
    }
  }

  return std::nullopt;
}

}  // namespace rea::evidence
