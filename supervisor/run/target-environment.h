#pragma once
// Composes the target's environment exactly as SPEC B §6.3 says (later entries overwrite):
//   1. the scenario's explicit `environment` entries;
//   2. HOME = <temp root>/home, TERM = xterm-256color, REA_PROCESS_RUN_ID = <run token>;
//   3. each `inherit_environment` name the harness itself has (silently skipped otherwise);
//   4. REA_REPLAY_HTTP_URL / REA_REPLAY_WEBSOCKET_URL / REA_SHIM_LEDGER_URL when those servers
//      run for this capture;
//   5. PATH = <temp root>/shims, followed by ":" + the PATH from steps 1/3 if non-empty.
// Nothing else from the harness environment is passed.
//
// Errors: none (pure composition over its inputs).

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rea::supervisor {

struct TargetEnvironmentInputs {
  std::vector<std::pair<std::string, std::string>> explicitEntries;  // scenario `environment`
  std::vector<std::string> inheritNames;                             // `inherit_environment`
  std::string homePath;
  std::string shimsPath;
  std::string runToken;
  std::optional<std::string> replayHttpUrl;       // http://127.0.0.1:<port>
  std::optional<std::string> replayWebSocketUrl;  // ws://127.0.0.1:<port>/ws
  std::optional<std::string> shimLedgerUrl;       // http://127.0.0.1:<port>/invoke
};

std::vector<std::string> composeTargetEnvironment(
    const TargetEnvironmentInputs& inputs,
    const std::function<std::optional<std::string>(const std::string&)>& harnessGetenv);
// NAME=VALUE entries, sorted by name (execve order is irrelevant to the target; sorting makes
// standalone requests and tests deterministic).

}  // namespace rea::supervisor
