#include "evidence/permission-ceiling.h"

#include <algorithm>

namespace rea::evidence {
namespace {

int networkRank(const std::string& network) {
  if (network == "external") return 2;
  if (network == "loopback") return 1;
  return 0;
}

std::vector<std::string> canonicalRoots(const std::vector<PolicyRoot>& roots) {
  std::vector<std::string> out;
  for (const auto& root : roots)
    out.push_back(root.canonical);
  return out;
}

bool coveredBy(const std::string& path, const std::vector<std::string>& roots) {
  return std::any_of(roots.begin(), roots.end(),
                     [&](const std::string& root) { return isWithinPath(path, root); });
}

}  // namespace

std::optional<CommandError> checkPermissionCeiling(const OperatorPolicy& policy,
                                                   const PolicyRequest& request,
                                                   const PathResolver& resolver) {
  PermissionScope requested;
  std::vector<std::string> paths = {request.workingDirectory};
  paths.insert(paths.end(), request.filesystemRoots.begin(), request.filesystemRoots.end());
  for (const auto& path : paths) {
    auto resolved = resolver.realPath(path);
    if (!resolved.path) return unreadableOutput();
    requested.roots.push_back(*resolved.path);
  }
  auto executable = resolver.realPath(request.executable);
  if (!executable.path) return unreadableOutput();
  requested.executables.push_back(*executable.path);
  requested.environmentNames = request.environmentNames;
  requested.network = request.networkAccess == NetworkAccess::LOOPBACK ? "loopback" : "external";

  std::optional<PermissionScope> ceiling;
  if (policy.captureEnabled) {
    PermissionScope scope;
    scope.roots = canonicalRoots(policy.workingRoots);
    scope.executables = canonicalRoots(policy.executableRoots);
    scope.environmentNames = policy.allowedEnvironment;
    scope.network = policy.allowExternalNetwork ? "external" : "loopback";
    ceiling = std::move(scope);
  }

  MissingScope missing;
  for (const auto& root : requested.roots) {
    if (!ceiling || !coveredBy(root, ceiling->roots)) missing.roots.push_back(root);
  }
  for (const auto& path : requested.executables) {
    if (!ceiling || !coveredBy(path, ceiling->executables)) missing.executables.push_back(path);
  }
  for (const auto& name : requested.environmentNames) {
    bool allowed =
        ceiling && std::find(ceiling->environmentNames.begin(), ceiling->environmentNames.end(),
                             name) != ceiling->environmentNames.end();
    if (!allowed) missing.environmentNames.push_back(name);
  }
  if (!ceiling || networkRank(ceiling->network) < networkRank(requested.network)) {
    missing.network = requested.network;
  }
  bool uncovered = !ceiling || !missing.roots.empty() || !missing.executables.empty() ||
                   !missing.environmentNames.empty() || missing.network.has_value();
  if (!uncovered) return std::nullopt;
  return permissionRequired(requested, missing, ceiling);
}

}  // namespace rea::evidence
