#pragma once
// The operator policy: the five environment variables of SPEC B §2.1, read once per CLI
// invocation, parsed exactly, with every configured root canonicalised at load. Owns the parsed
// `OperatorPolicy`; the checks that use it are in policy-check.h.
//
// Parsing rules (SPEC B §2.1): the switches accept only the literals `true` and `false`; the
// *_JSON variables must be JSON arrays of at most 128 non-empty strings; an unset variable takes
// its default (`false`, `[]`); a set but empty variable is a malformed value like any other.
// Roots may be relative (they resolve against the given current directory) and are not
// deduplicated. Every configured root must exist (gate 1 realpaths them at load, so a missing
// root breaks the configuration even while capture is disabled).
//
// Errors: nothing is thrown for bad configuration; every problem is returned as an Issue whose
// path names the variable (and item), and `OperatorPolicyLoad::error()` turns them into the
// `configuration_invalid` error of SPEC B §2.4. Throws std::invalid_argument when `cwd` is not
// absolute (a caller bug).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "evidence/error.h"
#include "evidence/issue.h"
#include "evidence/path.h"

namespace rea::evidence {

constexpr char CAPTURE_ENABLED_VARIABLE[] = "REA_PROCESS_CAPTURE_ENABLED";
constexpr char EXECUTABLE_ROOTS_VARIABLE[] = "REA_PROCESS_EXECUTABLE_ROOTS_JSON";
constexpr char WORKING_ROOTS_VARIABLE[] = "REA_PROCESS_WORKING_ROOTS_JSON";
constexpr char ALLOWED_ENV_VARIABLE[] = "REA_PROCESS_ALLOWED_ENV_JSON";
constexpr char ALLOW_EXTERNAL_NETWORK_VARIABLE[] = "REA_PROCESS_ALLOW_EXTERNAL_NETWORK";
constexpr char MAX_PIDS_VARIABLE[] = "REA_PROCESS_MAX_PIDS";
constexpr uint32_t DEFAULT_MAX_PIDS = 4096;  // a fork bomb stops here; `make -j` does not
constexpr uint32_t MAX_MAX_PIDS = 4194304;   // the kernel's pid_max ceiling
constexpr size_t MAX_POLICY_LIST_ITEMS = 128;

struct PolicyRoot {
  std::string configured;  // as written in the variable (may be relative)
  std::string lexical;     // absolute and lexically normalised (no symlinks followed)
  std::string canonical;   // realpath at load time
};

struct OperatorPolicy {
  bool captureEnabled = false;
  std::vector<PolicyRoot> executableRoots;      // directories (or files) an executable must lie in
  std::vector<PolicyRoot> workingRoots;         // for the working directory and filesystem roots
  std::vector<std::string> allowedEnvironment;  // names a scenario may set or inherit
  bool allowExternalNetwork = false;            // approval for network_access "host"
  uint32_t maxPids = DEFAULT_MAX_PIDS;  // live processes of one target at once; 0 = unbounded
};

struct OperatorPolicyLoad {
  std::optional<OperatorPolicy> policy;  // present exactly when `issues` is empty
  std::vector<Issue> issues;             // every problem; path = variable name, `[i]` for an item

  CommandError error() const;
  // The configuration_invalid error listing every issue. Call only when `policy` is absent.
};

using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;
// Returns a variable's value, or nullopt when it is unset.

OperatorPolicyLoad loadOperatorPolicy(const EnvironmentLookup& getenv, const std::string& cwd,
                                      const PathResolver& resolver = systemPathResolver());
// Reads and parses the variables (B §2.1's five, and REA_PROCESS_MAX_PIDS: a decimal integer
// 0–4194304, 0 meaning no bound). `cwd` is the absolute current directory, against which
// relative roots resolve (evidence/ reads no process state itself). Each root is canonicalised
// with `resolver`; one that cannot be (missing, not accessible) is an issue naming it.

}  // namespace rea::evidence
