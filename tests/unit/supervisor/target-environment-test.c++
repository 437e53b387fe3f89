#include "supervisor/run/target-environment.h"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

namespace rea::supervisor {
namespace {

std::map<std::string, std::string> asMap(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> out;
  for (const auto& entry : entries) {
    auto eq = entry.find('=');
    out[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return out;
}

TargetEnvironmentInputs baseInputs() {
  TargetEnvironmentInputs in;
  in.homePath = "/tmp/rea-process-x/home";
  in.shimsPath = "/tmp/rea-process-x/shims";
  in.runToken = "tok";
  return in;
}

auto harness(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(TargetEnvironment, PassesNothingButTheComposedEntries) {
  auto env = asMap(composeTargetEnvironment(baseInputs(), harness({{"SECRET", "x"}})));
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"HOME", "/tmp/rea-process-x/home"},
                                                     {"TERM", "xterm-256color"},
                                                     {"REA_PROCESS_RUN_ID", "tok"},
                                                     {"PATH", "/tmp/rea-process-x/shims"}}));
}

TEST(TargetEnvironment, AppendsExplicitOrInheritedPathAfterTheShims) {
  auto in = baseInputs();
  in.explicitEntries = {{"PATH", "/usr/bin:/bin"}, {"LANG", "C"}};
  auto env = asMap(composeTargetEnvironment(in, harness({})));
  EXPECT_EQ(env["PATH"], "/tmp/rea-process-x/shims:/usr/bin:/bin");
  EXPECT_EQ(env["LANG"], "C");

  in.explicitEntries = {};
  in.inheritNames = {"PATH", "MISSING"};
  env = asMap(composeTargetEnvironment(in, harness({{"PATH", "/opt/bin"}})));
  EXPECT_EQ(env["PATH"], "/tmp/rea-process-x/shims:/opt/bin");
  EXPECT_EQ(env.count("MISSING"), 0u);
}

TEST(TargetEnvironment, LaterStepsOverwriteEarlierOnes) {
  auto in = baseInputs();
  in.explicitEntries = {{"HOME", "/elsewhere"}, {"X", "explicit"}};
  in.inheritNames = {"X"};
  in.shimLedgerUrl = "http://127.0.0.1:4000/invoke";
  in.replayHttpUrl = "http://127.0.0.1:4001";
  in.replayWebSocketUrl = "ws://127.0.0.1:4001/ws";
  auto env = asMap(composeTargetEnvironment(in, harness({{"X", "inherited"}})));
  EXPECT_EQ(env["HOME"], "/tmp/rea-process-x/home");
  EXPECT_EQ(env["X"], "inherited");
  EXPECT_EQ(env["REA_SHIM_LEDGER_URL"], "http://127.0.0.1:4000/invoke");
  EXPECT_EQ(env["REA_REPLAY_HTTP_URL"], "http://127.0.0.1:4001");
  EXPECT_EQ(env["REA_REPLAY_WEBSOCKET_URL"], "ws://127.0.0.1:4001/ws");
}

}  // namespace
}  // namespace rea::supervisor
