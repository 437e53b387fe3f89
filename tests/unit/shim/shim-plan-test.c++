#include "helpers/shim/shim-plan.h"

#include <kj/exception.h>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace rea::helper {
namespace {

using evidence::Json;

TEST(ShimPlan, AppliesRouteDefaults) {
  ShimPlan plan = parseShimPlan(Json::parse(R"([{"name":"git","routes":[
      {"arguments":["status"],"termination":{"type":"exit","code":0}}]}])"));
  ASSERT_EQ(plan.shims.size(), 1u);
  EXPECT_EQ(plan.shims[0].name, "git");
  ASSERT_EQ(plan.shims[0].routes.size(), 1u);
  const ShimRoute& route = plan.shims[0].routes[0];
  EXPECT_EQ(route.arguments, std::vector<std::string>{"status"});
  EXPECT_TRUE(route.outputs.empty());
  EXPECT_EQ(route.maxCalls, 1u);
  EXPECT_EQ(route.termination.type, ShimTermination::Type::EXIT);
  EXPECT_EQ(route.termination.code, 0u);
}

TEST(ShimPlan, ReadsEveryMemberAndIgnoresUnknownOnes) {
  ShimPlan plan = parseShimPlan(Json::parse(R"([
      {"name":"a","extra":1,"routes":[
        {"arguments":[],"outputs":[{"at_ms":5,"stream":"stderr","data":"x\n","junk":true}],
         "termination":{"type":"signal","signal":"SIGTERM"},"max_calls":3.0}]},
      {"name":"b","routes":[{"arguments":["1","2"],"termination":{"type":"exit","code":255}}]}])"));
  ASSERT_EQ(plan.shims.size(), 2u);
  const ShimRoute& a = plan.shims[0].routes[0];
  ASSERT_EQ(a.outputs.size(), 1u);
  EXPECT_EQ(a.outputs[0].atMs, 5u);
  EXPECT_EQ(a.outputs[0].stream, "stderr");
  EXPECT_EQ(a.outputs[0].data, "x\n");
  EXPECT_EQ(a.termination.type, ShimTermination::Type::SIGNAL);
  EXPECT_EQ(a.termination.signal, "SIGTERM");
  EXPECT_EQ(a.maxCalls, 3u);
  EXPECT_EQ(plan.shims[1].routes[0].termination.code, 255u);
}

TEST(ShimPlan, RejectsAShapeThatValidationWouldNotHaveLetThrough) {
  auto parse = [](const char* text) {
    return kj::runCatchingExceptions([&]() { parseShimPlan(Json::parse(text)); });
  };
  EXPECT_NE(parse(R"({"name":"a"})"), nullptr);
  EXPECT_NE(parse(R"([{"name":"a","routes":[{"termination":{"type":"exit","code":0}}]}])"),
            nullptr);
  EXPECT_NE(parse(R"([{"name":"a","routes":[{"arguments":[1],
      "termination":{"type":"exit","code":0}}]}])"),
            nullptr);
  EXPECT_NE(parse(R"([{"name":"a","routes":[{"arguments":[]}]}])"), nullptr);
  EXPECT_NE(parse(R"([{"name":"a","routes":[{"arguments":[],
      "termination":{"type":"exit","code":1.5}}]}])"),
            nullptr);
  KJ_IF_MAYBE (e, parse(R"([{"name":"a","routes":[{"arguments":[],
      "termination":{"type":"crash"}}]}])")) {
    EXPECT_NE(e->getDescription().findFirst('/'), nullptr);  // names the JSON path
    EXPECT_TRUE(e->getDescription().endsWith("crash"));
  } else {
    ADD_FAILURE() << "an unknown termination type was accepted";
  }
}

TEST(ShimPlan, AnswersWithTheParsedRouteWithDefaultsInSpecOrder) {
  ShimPlan plan = parseShimPlan(Json::parse(R"([{"name":"codex","routes":[
      {"termination":{"code":0,"type":"exit"},"arguments":["--version"],
       "outputs":[{"data":"codex 1.2.3\n","stream":"stdout","at_ms":0}]}]}])"));
  EXPECT_EQ(routeResponseJson(plan.shims[0].routes[0]),
            R"({"arguments":["--version"],"outputs":[{"at_ms":0,"stream":"stdout",)"
            R"("data":"codex 1.2.3\n"}],"termination":{"type":"exit","code":0},"max_calls":1})");
  ShimRoute signal;
  signal.termination.type = ShimTermination::Type::SIGNAL;
  signal.termination.signal = "SIGKILL";
  signal.maxCalls = 7;
  EXPECT_EQ(routeResponseJson(signal),
            R"({"arguments":[],"outputs":[],"termination":{"type":"signal","signal":"SIGKILL"},)"
            R"("max_calls":7})");
}

}  // namespace
}  // namespace rea::helper
