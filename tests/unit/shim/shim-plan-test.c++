#include "helpers/shim/shim-plan.h"

#include <capnp/message.h>
#include <kj/exception.h>
#include <string.h>
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "helpers/shim/standalone.h"

namespace rea::helper {
namespace {

using evidence::Json;

ShimPlan parseShimPlan(const Json& commandShims) {
  // As the tests write plans: scenario JSON, through the typed plan the supervisor sends.
  return shimPlanFromJson(commandShims);
}

kj::Maybe<kj::Exception> readFailure(kj::FunctionParam<void(schema::ShimPlan::Builder)> build) {
  capnp::MallocMessageBuilder message;
  auto plan = message.initRoot<schema::ShimPlan>();
  build(plan);
  return kj::runCatchingExceptions([&]() { readShimPlan(plan.asReader()); });
}

void oneRoute(schema::ShimPlan::Builder plan, const char* name) {
  auto shim = plan.initShims(1)[0];
  shim.setName(name);
  shim.initRoutes(1)[0].initTermination().setExit(0);
}

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

TEST(ShimPlan, ReadsEveryMember) {
  ShimPlan plan = parseShimPlan(Json::parse(R"([
      {"name":"a","routes":[
        {"arguments":[],"outputs":[{"at_ms":5,"stream":"stderr","data":"x\n"}],
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
  // A standalone request's JSON goes through the scenario parser, which names the path.
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
    EXPECT_NE(e->getDescription().findFirst('.'), nullptr);  // names the path
    EXPECT_NE(strstr(e->getDescription().cStr(), "command_shims[0].routes[0].termination.type"),
              nullptr);
  } else {
    ADD_FAILURE() << "an unknown termination type was accepted";
  }
}

TEST(ShimPlan, RefusesATypedPlanNoScenarioHolds) {
  // A plan message is a claim: values its types allow but no validated plan holds are refused,
  // naming the plan path.
  KJ_IF_MAYBE (e, readFailure([](schema::ShimPlan::Builder plan) {
                 oneRoute(plan, "a");
                 plan.getShims()[0].getRoutes()[0].getTermination().setSignal(
                     static_cast<schema::CommandShim::Signal>(7));
               })) {
    EXPECT_NE(strstr(e->getDescription().cStr(), "/command_shims/0/routes/0/termination"), nullptr);
    EXPECT_NE(strstr(e->getDescription().cStr(), "unknown signal"), nullptr);
  } else {
    ADD_FAILURE() << "an unknown signal was accepted";
  }
  KJ_IF_MAYBE (e, readFailure([](schema::ShimPlan::Builder plan) {
                 oneRoute(plan, "a");
                 plan.getShims()[0].getRoutes()[0].initOutputs(1)[0].setStream(
                     static_cast<schema::CommandShim::Output::Stream>(2));
               })) {
    EXPECT_NE(strstr(e->getDescription().cStr(), "/command_shims/0/routes/0/outputs/0/stream"),
              nullptr);
  } else {
    ADD_FAILURE() << "an unknown output stream was accepted";
  }
  for (const char* name : {"", ".", "..", "a/b"}) {
    KJ_IF_MAYBE (e, readFailure([&](schema::ShimPlan::Builder plan) { oneRoute(plan, name); })) {
      EXPECT_NE(strstr(e->getDescription().cStr(), "/command_shims/0/name"), nullptr) << name;
    } else {
      ADD_FAILURE() << "the shim name \"" << name << "\" was accepted";
    }
  }
  EXPECT_EQ(readFailure([](schema::ShimPlan::Builder plan) { oneRoute(plan, "git"); }), nullptr);
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
