#include "supervisor/run/target-environment.h"

#include <map>

namespace rea::supervisor {

std::vector<std::string> composeTargetEnvironment(
    const TargetEnvironmentInputs& inputs,
    const std::function<std::optional<std::string>(const std::string&)>& harnessGetenv) {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : inputs.explicitEntries)
    env[name] = value;
  env["HOME"] = inputs.homePath;
  env["TERM"] = "xterm-256color";
  env["REA_PROCESS_RUN_ID"] = inputs.runToken;
  for (const auto& name : inputs.inheritNames) {
    if (auto value = harnessGetenv(name)) env[name] = *value;
  }
  if (inputs.replayHttpUrl) env["REA_REPLAY_HTTP_URL"] = *inputs.replayHttpUrl;
  if (inputs.replayWebSocketUrl) env["REA_REPLAY_WEBSOCKET_URL"] = *inputs.replayWebSocketUrl;
  if (inputs.shimLedgerUrl) env["REA_SHIM_LEDGER_URL"] = *inputs.shimLedgerUrl;
  auto path = env.find("PATH");
  std::string inheritedPath = path == env.end() ? "" : path->second;
  env["PATH"] = inputs.shimsPath + (inheritedPath.empty() ? "" : ":" + inheritedPath);

  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env)
    out.push_back(name + "=" + value);
  return out;
}

}  // namespace rea::supervisor
