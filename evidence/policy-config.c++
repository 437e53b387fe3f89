#include "evidence/policy-config.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace rea::evidence {

namespace {

std::string backticked(const std::string& text) {
  return "`" + text + "`";
}

// Values of the variables are never echoed in issues: an operator may have pasted something
// private into the wrong variable. Configured root paths are the exception, because the user
// must learn which root is missing.

bool parseSwitch(const EnvironmentLookup& getenv, const char* name, std::vector<Issue>& issues) {
  std::optional<std::string> value = getenv(name);
  if (!value) return false;
  if (*value == "true") return true;
  if (*value == "false") return false;
  issues.push_back({name, "must be exactly `true` or `false` (lowercase)"});
  return false;
}

uint32_t parseMaxPids(const EnvironmentLookup& getenv, std::vector<Issue>& issues) {
  std::optional<std::string> value = getenv(MAX_PIDS_VARIABLE);
  if (!value) return DEFAULT_MAX_PIDS;
  bool digits = !value->empty() && value->size() <= 7 &&
                value->find_first_not_of("0123456789") == std::string::npos;
  if (digits && std::stoul(*value) <= MAX_MAX_PIDS) return uint32_t(std::stoul(*value));
  issues.push_back({MAX_PIDS_VARIABLE, "must be a decimal integer from 0 (no bound) to " +
                                           std::to_string(MAX_MAX_PIDS)});
  return DEFAULT_MAX_PIDS;
}

std::vector<std::string> parseStringList(const EnvironmentLookup& getenv, const char* name,
                                         std::vector<Issue>& issues) {
  std::vector<std::string> out;
  std::optional<std::string> value = getenv(name);
  if (!value) return out;

  Json parsed = Json::parse(*value, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    issues.push_back({name, "must be valid JSON (a JSON array of non-empty strings)"});
    return out;
  }
  if (!parsed.is_array()) {
    issues.push_back({name, "must be a JSON array of non-empty strings"});
    return out;
  }
  if (parsed.size() > MAX_POLICY_LIST_ITEMS) {
    issues.push_back({name, "must have at most " + std::to_string(MAX_POLICY_LIST_ITEMS) +
                                " items (has " + std::to_string(parsed.size()) + ")"});
  }
  for (size_t i = 0; i < parsed.size(); ++i) {
    const Json& item = parsed[i];
    if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
      issues.push_back({indexPath(name, i), "must be a non-empty string"});
      continue;
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<PolicyRoot> parseRoots(const EnvironmentLookup& getenv, const char* name,
                                   const std::string& cwd, const PathResolver& resolver,
                                   std::vector<Issue>& issues) {
  size_t issuesBefore = issues.size();
  std::vector<std::string> configured = parseStringList(getenv, name, issues);
  std::vector<PolicyRoot> roots;
  if (issues.size() != issuesBefore) {
    // The list itself is malformed: reporting missing roots of a broken list would only add
    // noise, and index numbers could not be trusted.
    return roots;
  }
  for (size_t i = 0; i < configured.size(); ++i) {
    PolicyRoot root;
    root.configured = configured[i];
    root.lexical = resolvePath(cwd, configured[i]);
    ResolvedPath resolved = resolver.realPath(joinPath(cwd, configured[i]));
    if (!resolved.path) {
      std::string message = "root " + backticked(configured[i]);
      if (configured[i].front() != '/') message += " (" + backticked(root.lexical) + ")";
      message += " " + describePathError(resolved.errorNumber);
      issues.push_back({indexPath(name, i), std::move(message)});
      continue;
    }
    root.canonical = normalizePath(*resolved.path);
    roots.push_back(std::move(root));
  }
  return roots;
}

}  // namespace

CommandError OperatorPolicyLoad::error() const {
  return configurationInvalid(issues);
}

OperatorPolicyLoad loadOperatorPolicy(const EnvironmentLookup& getenv, const std::string& cwd,
                                      const PathResolver& resolver) {
  if (cwd.empty() || cwd.front() != '/') {
    throw std::invalid_argument("loadOperatorPolicy: cwd must be an absolute path");
  }
  OperatorPolicyLoad load;
  OperatorPolicy policy;
  // Variables in the order of SPEC B §2.1, so issues come out in that order.
  policy.captureEnabled = parseSwitch(getenv, CAPTURE_ENABLED_VARIABLE, load.issues);
  policy.executableRoots =
      parseRoots(getenv, EXECUTABLE_ROOTS_VARIABLE, cwd, resolver, load.issues);
  policy.workingRoots = parseRoots(getenv, WORKING_ROOTS_VARIABLE, cwd, resolver, load.issues);
  policy.allowedEnvironment = parseStringList(getenv, ALLOWED_ENV_VARIABLE, load.issues);
  policy.allowExternalNetwork = parseSwitch(getenv, ALLOW_EXTERNAL_NETWORK_VARIABLE, load.issues);
  policy.maxPids = parseMaxPids(getenv, load.issues);
  if (load.issues.empty()) load.policy = std::move(policy);
  return load;
}

}  // namespace rea::evidence
