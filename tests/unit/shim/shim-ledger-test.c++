#include "helpers/shim/shim-ledger.h"
#include "helpers/shim/standalone.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace rea::helper {
namespace {

ShimPlan planOf(const char* json) {
  return shimPlanFromJson(evidence::Json::parse(json));
}

ShimInvocation call(std::string command, std::vector<std::string> arguments,
                    std::string cwd = "/work") {
  return {std::move(command), std::move(arguments), std::move(cwd)};
}

ShimPlan twoRoutes() {
  // Two shims named "git": scenario validation refuses that (names are unique), but a typed plan
  // can hold it and the ledger then consults only the first. Written as two plans joined.
  ShimPlan plan = planOf(R"([
  {"name":"git","routes":[
    {"arguments":["status"],"termination":{"type":"exit","code":0},"max_calls":2},
    {"arguments":["status"],"termination":{"type":"exit","code":9}},
    {"arguments":["log","-1"],"outputs":[{"at_ms":0,"stream":"stdout","data":"abc\n"}],
     "termination":{"type":"exit","code":0}}]},
  {"name":"npm","routes":[{"arguments":[],"termination":{"type":"exit","code":1}}]}])");
  ShimPlan second = planOf(
      R"([{"name":"git","routes":[{"arguments":["push"],"termination":{"type":"exit","code":0}}]}])");
  plan.shims.insert(plan.shims.begin() + 1, second.shims[0]);
  return plan;
}

TEST(ShimLedger, MatchesTheFirstRouteWithExactlyEqualArguments) {
  ShimLedger ledger(twoRoutes(), 100);
  ShimAnswer answer = ledger.invoke(call("git", {"log", "-1"}), 42);
  EXPECT_EQ(answer.outcome, ShimOutcome::MATCHED);
  EXPECT_EQ(answer.routeIndex, 2u);
  EXPECT_EQ(answer.routeJson, routeResponseJson(ledger.plan().shims[0].routes[2]));

  // Same strings in another order, a prefix, an extension: no match (no globbing, no prefix).
  EXPECT_EQ(ledger.invoke(call("git", {"-1", "log"}), 43).outcome, ShimOutcome::UNMATCHED);
  EXPECT_EQ(ledger.invoke(call("git", {"log"}), 44).outcome, ShimOutcome::UNMATCHED);
  EXPECT_EQ(ledger.invoke(call("git", {"log", "-1", ""}), 45).outcome, ShimOutcome::UNMATCHED);
  EXPECT_EQ(ledger.invoke(call("git", {"stat*"}), 46).outcome, ShimOutcome::UNMATCHED);
  // npm's one route has no arguments: an empty string is an argument.
  EXPECT_EQ(ledger.invoke(call("npm", {}), 47).outcome, ShimOutcome::MATCHED);
  EXPECT_EQ(ledger.invoke(call("npm", {""}), 48).outcome, ShimOutcome::UNMATCHED);
}

TEST(ShimLedger, OnlyTheFirstShimOfANameIsConsulted) {
  ShimLedger ledger(twoRoutes(), 100);
  ShimAnswer answer = ledger.invoke(call("git", {"push"}), 1);
  EXPECT_EQ(answer.outcome, ShimOutcome::UNMATCHED);
  EXPECT_EQ(answer.routeIndex, std::nullopt);
  EXPECT_TRUE(answer.routeJson.empty());
}

TEST(ShimLedger, CountsCallsPerRouteAndExhaustsAtMaxCalls) {
  ShimLedger ledger(twoRoutes(), 100);
  EXPECT_EQ(ledger.invoke(call("git", {"status"}), 1).outcome, ShimOutcome::MATCHED);
  EXPECT_EQ(ledger.invoke(call("git", {"status"}), 2).outcome, ShimOutcome::MATCHED);
  // The first equal route is exhausted: its twin at index 1 is never reached.
  ShimAnswer third = ledger.invoke(call("git", {"status"}), 3);
  EXPECT_EQ(third.outcome, ShimOutcome::EXHAUSTED);
  EXPECT_EQ(third.routeIndex, 0u);
  EXPECT_TRUE(third.routeJson.empty());
  EXPECT_EQ(ledger.callCount(0, 0), 2u);
  EXPECT_EQ(ledger.callCount(0, 1), 0u);
  EXPECT_EQ(ledger.callCount(0, 2), 0u);
  // Another route keeps its own counter.
  EXPECT_EQ(ledger.invoke(call("git", {"log", "-1"}), 4).outcome, ShimOutcome::MATCHED);
  EXPECT_EQ(ledger.invoke(call("git", {"log", "-1"}), 5).outcome, ShimOutcome::EXHAUSTED);
}

TEST(ShimLedger, RecordsEveryCallWithRawArgumentsAndDirectory) {
  ShimLedger ledger(twoRoutes(), 100);
  ledger.invoke(call("git", {"status"}, "/tmp/rea-process-x/home"), 100);
  ledger.invoke(call("hg", {"a b", "*"}, "/"), 200);
  ledger.invoke(call("git", {"log", "-1"}), 300);
  ledger.invoke(call("git", {"log", "-1"}), 400);
  const auto& events = ledger.events();
  ASSERT_EQ(events.size(), 4u);
  for (uint32_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(events[i].sequence, i);
  EXPECT_EQ(events[0].atNs, 100u);
  EXPECT_EQ(events[0].command, "git");
  EXPECT_EQ(events[0].routeIndex, 0u);
  EXPECT_EQ(events[0].workingDirectory, "/tmp/rea-process-x/home");
  EXPECT_EQ(events[0].outcome, ShimOutcome::MATCHED);
  EXPECT_EQ(events[1].command, "hg");
  EXPECT_EQ(events[1].routeIndex, std::nullopt);
  EXPECT_EQ(events[1].arguments, (std::vector<std::string>{"a b", "*"}));
  EXPECT_EQ(events[1].outcome, ShimOutcome::UNMATCHED);
  EXPECT_EQ(events[3].routeIndex, 2u);
  EXPECT_EQ(events[3].outcome, ShimOutcome::EXHAUSTED);
  EXPECT_FALSE(ledger.truncated());
}

TEST(ShimLedger, StopsRecordingAtTheLimitButKeepsAnswering) {
  ShimLedger ledger(planOf(R"([{"name":"t","routes":[
      {"arguments":[],"termination":{"type":"exit","code":0},"max_calls":3}]}])"),
                    2);
  EXPECT_EQ(ledger.invoke(call("t", {}), 1).outcome, ShimOutcome::MATCHED);
  EXPECT_EQ(ledger.invoke(call("t", {}), 2).outcome, ShimOutcome::MATCHED);
  EXPECT_FALSE(ledger.truncated());
  ShimAnswer third = ledger.invoke(call("t", {}), 3);
  EXPECT_EQ(third.outcome, ShimOutcome::MATCHED);  // still answered, and still counted
  EXPECT_FALSE(third.routeJson.empty());
  EXPECT_TRUE(ledger.truncated());
  EXPECT_EQ(ledger.invoke(call("t", {}), 4).outcome, ShimOutcome::EXHAUSTED);
  EXPECT_EQ(ledger.events().size(), 2u);
  EXPECT_EQ(ledger.callCount(0, 0), 3u);
  EXPECT_EQ(ledger.droppedCount(), 2u);
}

TEST(ShimLedger, TellsItsObserverAboutEachRecordedEventOnly) {
  // The RPC front end streams events through this hook; unrecorded calls must not reach it.
  ShimLedger ledger(twoRoutes(), 2);
  std::vector<uint32_t> seen;
  ledger.onRecorded([&seen](const ShimEvent& event) { seen.push_back(event.sequence); });
  EXPECT_EQ(ledger.droppedCount(), 0u);
  ledger.invoke(call("git", {"status"}), 1);
  ledger.invoke(call("nope", {}), 2);
  ledger.invoke(call("git", {"status"}), 3);
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(ledger.droppedCount(), 1u);
}

TEST(ShimLedger, NamesOutcomesAsTheCaptureDoes) {
  EXPECT_STREQ(shimOutcomeName(ShimOutcome::MATCHED), "matched");
  EXPECT_STREQ(shimOutcomeName(ShimOutcome::UNMATCHED), "unmatched");
  EXPECT_STREQ(shimOutcomeName(ShimOutcome::EXHAUSTED), "exhausted");
}

}  // namespace
}  // namespace rea::helper
