#pragma once
// The error objects of SPEC B §2.4: what `rea` prints on stdout (exit code 1) instead of an
// Evidence record, plus the one plain line for stderr (A12). Owns every user-facing failure
// message of the CLI; callers pick a factory, never write message text themselves.
//
// Two forms exist. The short form `{error, category, message}` reports input problems found
// before any capture machinery runs. The full form `{error, code, category, message, retryable,
// remediation:{action, restart_required[, elicitation_supported]}, details?}` reports typed
// failures of configuration, policy and capture.
//
// Messages tell the user what to do next. They never contain secret values, exception texts,
// stack traces or paths taken from a cause; the only variable text is what the caller passes
// (a file name the user typed, a scenario path, a configured root, a fixed reason sentence).
//
// Errors: none thrown (factories and printing are total).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/issue.h"
#include "evidence/json.h"

namespace rea::evidence {

struct Remediation {
  std::string action;
  bool restartRequired = false;              // SPEC B §2.4: always false
  std::optional<bool> elicitationSupported;  // present only in gate-1 denials (false)
};

struct CommandError {
  std::string code;  // "" in the short form; e.g. "configuration_invalid" in the full form
  std::string category;
  std::string message;
  bool retryable = false;               // full form only
  Remediation remediation;              // full form only
  std::shared_ptr<const Json> details;  // full form only; null when the error has no details

  bool isShortForm() const { return code.empty(); }

  Json toJson() const;
  // `{"error":"Process command failed", ...}` with members in the order of SPEC B §2.4.

  std::string summary() const;
  // One plain line for stderr, e.g. "rea: process command failed (configuration_invalid): ...".
  // Control characters in the message are replaced by spaces so it stays one line.
};

constexpr char ERROR_TEXT[] = "Process command failed";
constexpr size_t MAX_INPUT_BYTES = 67108864;  // 64 MiB, SPEC B §10.1

// ---- Short form: CLI input problems -------------------------------------------------------
// `file` is the path as the user typed it on the command line.

CommandError inputUnreadable(std::string_view file);
// invalid_input: the file cannot be opened or read.

CommandError inputTooLarge(std::string_view file);
// truncated: the file is larger than MAX_INPUT_BYTES.

struct TextPosition {
  size_t line;    // from 1
  size_t column;  // from 1, in bytes
};

CommandError inputNotJson(std::string_view file, std::optional<TextPosition> where = {});
// invalid_input: the file is not valid UTF-8 JSON; `where` is the first offending byte.

CommandError scenarioInvalid(const std::vector<Issue>& issues);
// invalid_input: the scenario failed its schema or cross-field rules; every issue is listed
// ("events[3].at_ms: must not exceed timeout_ms (30000)"). Issue messages state rules and
// bounds, never values, so no secret can leak through them.

CommandError evidenceMalformed(std::string_view file, const std::vector<Issue>& issues = {});
// invalid_input (compare): the Evidence fails parsing, its id check, or its capture fails v4
// parsing/validation. `issues`, when given, are the validation findings to list.

CommandError evidenceLegacyV3(std::string_view file);
// invalid_input (compare): the Evidence holds a `rea.process-capture/v3` record (the "legacy
// message": unsupported, re-run to produce v4, cannot be upgraded).

CommandError evidenceNotCurrentWorkflow(std::string_view file);
// invalid_input (compare): other operation, predicate, provider id or provider version.

CommandError toolArgumentsInvalid(std::string_view tool, const std::vector<Issue>& issues);
// invalid_input (`rea mcp`): the arguments of a tool call break its input schema; every issue
// is listed. Issues name arguments and rules, never values.

CommandError executionFailure(std::string_view reason = {});
// execution_failure: anything unexpected (incl. incompatible comparison contracts). `reason`,
// when given, is one fixed sentence written by the caller (e.g. "The two captures were made
// under different comparison contracts."), never an exception text.

// ---- Full form: typed errors ----------------------------------------------------------------

CommandError configurationInvalid(const std::vector<Issue>& issues);
// configuration_invalid / execution_failure: the operator policy cannot load. Each issue names
// the variable (its path, e.g. "REA_PROCESS_WORKING_ROOTS_JSON[1]") and the problem.

struct PermissionScope {
  // One scope of capability `process_capture` (gate 1 of SPEC B §2.2).
  std::vector<std::string> roots;
  std::vector<std::string> executables;
  std::vector<std::string> environmentNames;
  std::string network;  // "none" | "loopback" | "external"
  bool mount = false;
};

struct MissingScope {
  // The parts of a request a ceiling does not cover; only non-empty parts are printed.
  std::vector<std::string> roots;
  std::vector<std::string> executables;
  std::vector<std::string> environmentNames;
  std::optional<std::string> network;  // the requested network, when the ceiling's rank is lower
  bool mount = false;                  // true when mount was requested and not granted
};

CommandError permissionRequired(const PermissionScope& requested, const MissingScope& missing,
                                const std::optional<PermissionScope>& ceiling);
// permission_required (gate-1 form): details {capability, requested, missing, ceiling|null}
// (`ceiling` is null when capture is disabled); remediation.action tells the operator to grant
// exactly the missing scope under the administrator ceiling; elicitation_supported false.

enum class PolicyDenial {
  // The gate-2 checks of SPEC B §2.2, in the order they run.
  CAPTURE_DISABLED,
  HOST_NETWORK_NOT_APPROVED,
  EXECUTABLE_OUTSIDE_ROOTS,
  WORKING_DIRECTORY_OUTSIDE_ROOTS,
  ENVIRONMENT_NOT_ALLOWED,
  FILESYSTEM_ROOT_OUTSIDE_ROOTS,
};

CommandError policyDenied(PolicyDenial reason, std::string_view subject = {},
                          std::string_view resolvedTo = {});
// permission_required (gate-2 form): a reason-specific message that names the variable the
// operator edits. `subject` is the offending path or environment name as the scenario wrote it;
// `resolvedTo`, when given, is its canonical path (the request reached outside through a
// symlink). remediation.action equals the message.

CommandError unreadableOutput();
// unreadable_output / execution_failure: a gate-1 request path could not be canonicalised.

CommandError processCaptureFailed(std::string_view reason = {});
// process_capture_failed / execution_failure: gate 3, launch, snapshot I/O, validation or any
// other engine error. `reason`, when given, is one fixed sentence naming what failed (e.g.
// "The working_directory does not exist."), never an exception text or secret.

CommandError cleanupIncomplete(std::string_view reason = {},
                               const std::vector<std::string>& resources = {});
// cleanup_incomplete / execution_failure: details {cleanup:"incomplete", resources:[...]}.

CommandError cancelled();
// cancelled / cancelled, retryable: details {operation:"process_capture", cleanup:"complete"}.

CommandError integrityMismatch(std::string_view reason);
// integrity_mismatch / integrity_mismatch (`rea mcp` compare, B §10.2): an Evidence id this
// session does not hold, a supplied capture that differs from the stored one, or two captures
// that may not be compared. `reason` is one sentence written by the caller (it may name an
// Evidence id, never a capture's content).

}  // namespace rea::evidence
