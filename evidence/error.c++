#include "evidence/error.h"

#include <nlohmann/json.hpp>

namespace rea::evidence {

namespace {

constexpr char DOCTOR[] = "Run `rea doctor` to check this machine and the operator policy.";

std::string backticked(std::string_view text) {
  return "`" + std::string(text) + "`";
}

CommandError shortForm(std::string category, std::string message) {
  CommandError error;
  error.category = std::move(category);
  error.message = std::move(message);
  return error;
}

CommandError fullForm(std::string code, std::string category, std::string message,
                      bool retryable = false) {
  CommandError error;
  error.code = std::move(code);
  error.category = std::move(category);
  error.message = std::move(message);
  error.retryable = retryable;
  // SPEC B §2.4: the action repeats the message, except in gate-1 denials.
  error.remediation.action = error.message;
  return error;
}

std::string withReason(std::string_view reason, std::string_view rest) {
  if (reason.empty()) return std::string(rest);
  return std::string(reason) + " " + std::string(rest);
}

Json scopeJson(const PermissionScope& scope) {
  Json out = Json::object();
  out["capability"] = "process_capture";
  out["roots"] = scope.roots;
  out["executables"] = scope.executables;
  out["environment_names"] = scope.environmentNames;
  out["network"] = scope.network;
  out["mount"] = scope.mount;
  return out;
}

Json missingJson(const MissingScope& missing) {
  Json out = Json::object();
  if (!missing.roots.empty()) out["roots"] = missing.roots;
  if (!missing.executables.empty()) out["executables"] = missing.executables;
  if (!missing.environmentNames.empty()) out["environment_names"] = missing.environmentNames;
  if (missing.network) out["network"] = *missing.network;
  if (missing.mount) out["mount"] = true;
  return out;
}

}  // namespace

Json CommandError::toJson() const {
  Json out = Json::object();
  out["error"] = ERROR_TEXT;
  if (isShortForm()) {
    out["category"] = category;
    out["message"] = message;
    return out;
  }
  out["code"] = code;
  out["category"] = category;
  out["message"] = message;
  out["retryable"] = retryable;
  Json remediationJson = Json::object();
  remediationJson["action"] = remediation.action;
  remediationJson["restart_required"] = remediation.restartRequired;
  if (remediation.elicitationSupported) {
    remediationJson["elicitation_supported"] = *remediation.elicitationSupported;
  }
  out["remediation"] = std::move(remediationJson);
  if (details != nullptr) out["details"] = *details;
  return out;
}

std::string CommandError::summary() const {
  std::string line = "rea: process command failed (" + (isShortForm() ? category : code) + "): ";
  for (char c : message) {
    unsigned char byte = static_cast<unsigned char>(c);
    line += (byte < 0x20 || byte == 0x7f) ? ' ' : c;
  }
  return line;
}

// ---- Short form ---------------------------------------------------------------------------

CommandError inputUnreadable(std::string_view file) {
  return shortForm("invalid_input", "Cannot open the input file " + backticked(file) +
                                        ". Verify that the path exists and that you may read it.");
}

CommandError inputTooLarge(std::string_view file) {
  return shortForm("truncated", "The input file " + backticked(file) +
                                    " is larger than 64 MiB (67108864 bytes). Reduce it below "
                                    "64 MiB and try again.");
}

CommandError inputNotJson(std::string_view file, std::optional<TextPosition> where) {
  std::string at;
  if (where) {
    at = " at line " + std::to_string(where->line) + ", column " + std::to_string(where->column);
  }
  return shortForm("invalid_input", "The input file " + backticked(file) +
                                        " is not valid JSON (UTF-8)" + at +
                                        ". Fix its syntax and try again.");
}

CommandError scenarioInvalid(const std::vector<Issue>& issues) {
  std::string message = "The scenario is invalid";
  if (!issues.empty()) message += ": " + formatIssues(issues);
  message +=
      ". Check the required fields and limits of the scenario format (docs/scenario.md) and try "
      "again.";
  return shortForm("invalid_input", std::move(message));
}

CommandError evidenceMalformed(std::string_view file, const std::vector<Issue>& issues) {
  std::string message = "The capture evidence in " + backticked(file) + " is malformed";
  if (!issues.empty()) message += " (" + formatIssues(issues) + ")";
  message += ". Create new evidence with `rea capture-process` and compare that.";
  return shortForm("invalid_input", std::move(message));
}

CommandError evidenceLegacyV3(std::string_view file) {
  return shortForm("invalid_input",
                   "The evidence in " + backticked(file) +
                       " holds a Process Capture v3 record, which is no longer supported. "
                       "Re-run the scenario with `rea capture-process` to produce v4 evidence; "
                       "v3 captures cannot be upgraded.");
}

CommandError evidenceNotCurrentWorkflow(std::string_view file) {
  return shortForm("invalid_input", "The evidence in " + backticked(file) +
                                        " was not produced by the current process capture workflow "
                                        "(rea.process-capture/v4). Make new capture evidence with "
                                        "`rea capture-process` and compare that.");
}

CommandError toolArgumentsInvalid(std::string_view tool, const std::vector<Issue>& issues) {
  std::string message = "The arguments of " + backticked(tool) + " are invalid";
  if (!issues.empty()) message += ": " + formatIssues(issues);
  message += ". Check them against the tool's input schema and try again.";
  return shortForm("invalid_input", std::move(message));
}

CommandError executionFailure(std::string_view reason) {
  return shortForm("execution_failure",
                   withReason(reason,
                              "The command could not complete. Check the inputs and run "
                              "`rea doctor` to check this machine."));
}

// ---- Full form ----------------------------------------------------------------------------

CommandError configurationInvalid(const std::vector<Issue>& issues) {
  std::string message = "The operator configuration is invalid";
  if (!issues.empty()) message += ": " + formatIssues(issues);
  message += ". Correct the REA_PROCESS_* environment variables of the operator (docs/policy.md). ";
  message += DOCTOR;
  return fullForm("configuration_invalid", "execution_failure", std::move(message));
}

CommandError permissionRequired(const PermissionScope& requested, const MissingScope& missing,
                                const std::optional<PermissionScope>& ceiling) {
  CommandError error = fullForm(
      "permission_required", "permission_required",
      "More local permission is required for process capture. Inspect the requested scope and "
      "the missing parts in the details, then follow the remediation.");
  error.remediation.action =
      "Ask the operator to grant exactly the scope listed under details.missing, within the "
      "administrator ceiling (REA_PROCESS_CAPTURE_ENABLED, REA_PROCESS_EXECUTABLE_ROOTS_JSON, "
      "REA_PROCESS_WORKING_ROOTS_JSON, REA_PROCESS_ALLOWED_ENV_JSON, "
      "REA_PROCESS_ALLOW_EXTERNAL_NETWORK), then run the command again.";
  error.remediation.elicitationSupported = false;
  Json details = Json::object();
  details["capability"] = "process_capture";
  details["requested"] = scopeJson(requested);
  details["missing"] = missingJson(missing);
  details["ceiling"] = ceiling ? scopeJson(*ceiling) : Json(nullptr);
  error.details = std::make_shared<const Json>(std::move(details));
  return error;
}

CommandError policyDenied(PolicyDenial reason, std::string_view subject,
                          std::string_view resolvedTo) {
  // "The executable `/w/link` (which resolves to `/usr/bin/x`)" or just "The executable `/x`".
  auto what = [&](std::string_view noun) {
    std::string out = std::string(noun) + " " + backticked(subject);
    if (!resolvedTo.empty()) out += " (which resolves to " + backticked(resolvedTo) + ")";
    return out;
  };
  std::string message;
  switch (reason) {
    case PolicyDenial::CAPTURE_DISABLED:
      message =
          "Process capture is disabled. The operator must set REA_PROCESS_CAPTURE_ENABLED=true, "
          "configure REA_PROCESS_EXECUTABLE_ROOTS_JSON and REA_PROCESS_WORKING_ROOTS_JSON, and "
          "then run rea again.";
      break;
    case PolicyDenial::HOST_NETWORK_NOT_APPROVED:
      message =
          "The scenario asks for host networking (network_access \"host\"), which the operator "
          "has not approved. Prefer replayed networking with network_access \"loopback\", or "
          "ask the operator to set REA_PROCESS_ALLOW_EXTERNAL_NETWORK=true.";
      break;
    case PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS:
      message = what("The executable") +
                " is not inside any root of REA_PROCESS_EXECUTABLE_ROOTS_JSON. Pick an executable "
                "under an approved root, or ask the operator to add its directory to "
                "REA_PROCESS_EXECUTABLE_ROOTS_JSON.";
      break;
    case PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS:
      message = what("The working directory") +
                " is not inside any root of REA_PROCESS_WORKING_ROOTS_JSON. Use a working "
                "directory under an approved root, or ask the operator to extend "
                "REA_PROCESS_WORKING_ROOTS_JSON.";
      break;
    case PolicyDenial::ENVIRONMENT_NOT_ALLOWED:
      message = "The environment variable " + backticked(subject) +
                " is not listed in REA_PROCESS_ALLOWED_ENV_JSON. Drop it from the scenario's "
                "environment or inherit_environment, or ask the operator to add its name to "
                "REA_PROCESS_ALLOWED_ENV_JSON.";
      break;
    case PolicyDenial::FILESYSTEM_ROOT_OUTSIDE_ROOTS:
      message = what("The filesystem root") +
                " is not inside any root of REA_PROCESS_WORKING_ROOTS_JSON. Drop it from the "
                "scenario's filesystem_roots, or ask the operator to extend "
                "REA_PROCESS_WORKING_ROOTS_JSON.";
      break;
  }
  return fullForm("permission_required", "permission_required", std::move(message));
}

CommandError unreadableOutput() {
  return fullForm("unreadable_output", "execution_failure",
                  std::string("The result was unreadable. Try once more; if it happens again, ") +
                      "run `rea doctor` to check this machine and the operator policy.");
}

CommandError processCaptureFailed(std::string_view reason) {
  return fullForm("process_capture_failed", "execution_failure",
                  withReason(reason, std::string("The process capture failed. ") + DOCTOR +
                                         " Then re-check the capture policy and the scenario."));
}

CommandError cleanupIncomplete(std::string_view reason, const std::vector<std::string>& resources) {
  CommandError error =
      fullForm("cleanup_incomplete", "execution_failure",
               withReason(reason, std::string("The process capture failed: its cleanup could not "
                                              "be completed or verified. ") +
                                      DOCTOR + " Then re-check the capture policy."));
  Json details = Json::object();
  details["cleanup"] = "incomplete";
  details["resources"] = resources;
  error.details = std::make_shared<const Json>(std::move(details));
  return error;
}

CommandError cancelled() {
  CommandError error =
      fullForm("cancelled", "cancelled", "The capture was cancelled. Start it again when ready.",
               /*retryable=*/true);
  Json details = Json::object();
  details["operation"] = "process_capture";
  details["cleanup"] = "complete";
  error.details = std::make_shared<const Json>(std::move(details));
  return error;
}

CommandError integrityMismatch(std::string_view reason) {
  return fullForm("integrity_mismatch", "integrity_mismatch",
                  withReason(reason,
                             "Compare only captures made by `capture_process_scenario` in this "
                             "session, passing them back unchanged (or not at all)."));
}

}  // namespace rea::evidence
