// Reactive events (docs/scenario.md, "Events that wait"): the `when` members of a scenario event,
// their validation and JSON form, and ConditionWatch, which decides when a condition holds.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "evidence/condition-watch.h"
#include "evidence/scenario.h"
#include "tests/unit/scenario-test-support.h"

namespace rea::evidence {
namespace {

using namespace rea::evidence::testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Json reactiveScenario(const char* events) {
  Json scenario = minimalScenario();
  scenario["events"] = Json::parse(events);
  return scenario;
}

TEST(ReactiveEventParse, AWaitingEventNeedsNoAtMsAndKeepsItsMembers) {
  Scenario s = parsedOrFail(reactiveScenario(
      R"([{"type":"input","when":{"type":"output_literal","value":"name? "},"data":"x\r",)"
      R"("delay_ms":20,"timeout_ms":5000,"on_timeout":"stop"}])"));
  ASSERT_EQ(s.events.size(), 1u);
  const Event& e = s.events[0];
  EXPECT_EQ(e.atMs, 0);
  ASSERT_TRUE(e.when);
  auto& literal = std::get<OutputLiteralCondition>(e.when->kind);
  EXPECT_EQ(literal.value, "name? ");
  EXPECT_EQ(literal.occurrence, 1);
  EXPECT_EQ(e.delayMs, 20);
  EXPECT_EQ(e.timeoutMs, 5000);
  EXPECT_EQ(e.onTimeout, OnTimeout::STOP);
  EXPECT_EQ(toJson(e).dump(), R"({"at_ms":0,"type":"input","data":"x\r","sensitive":false,)"
                              R"("when":{"type":"output_literal","value":"name? ","occurrence":1},)"
                              R"("delay_ms":20,"timeout_ms":5000,"on_timeout":"stop"})");
}

TEST(ReactiveEventParse, EveryConditionRoundTripsThroughToJson) {
  Json input = reactiveScenario(
      R"([{"type":"input","when":{"type":"output_regex","pattern":"v[0-9]+","occurrence":2},"data":"a"},)"
      R"({"type":"resize","when":{"type":"screen_literal","value":"ready","row":3},"columns":90,"rows":30},)"
      R"({"type":"signal","when":{"type":"checkpoint","name":"saved"},"signal":"SIGINT"},)"
      R"({"type":"input","at_ms":50,"when":{"type":"root_exit"},"data":"b"},)"
      R"({"type":"input","when":{"type":"screen_literal","value":"$"},"data":"c"}])");
  input["checkpoints"] = Json::parse(R"([{"name":"saved","trigger":{"type":"root_exit"}}])");
  Scenario s = parsedOrFail(input);
  Scenario again = parsedOrFail(toJson(s));
  EXPECT_EQ(toJson(again).dump(), toJson(s).dump());
  EXPECT_EQ(std::get<ScreenLiteralCondition>(s.events[1].when->kind).row, 3);
  EXPECT_FALSE(std::get<ScreenLiteralCondition>(s.events[4].when->kind).row);
  EXPECT_EQ(s.events[3].atMs, 50);
}

TEST(ReactiveEventParse, ATimeOnlyEventKeepsItsExactForm) {
  Scenario s = parsedOrFail(reactiveScenario(R"([{"type":"input","at_ms":200,"data":"w\r"}])"));
  EXPECT_EQ(toJson(s.events[0]).dump(),
            R"({"at_ms":200,"type":"input","data":"w\r","sensitive":false})");
  EXPECT_THAT(issuesOf(reactiveScenario(R"([{"type":"input","data":"w"}])")),
              ElementsAre("events[0].at_ms: is required"));
}

TEST(ReactiveEventParse, WaitingEventsAreExemptFromTheAtMsOrderButNotFromTheTimeout) {
  // A waiting event's at_ms is only its earliest time: the time-only events around it keep
  // their order rule among themselves.
  EXPECT_THAT(issuesOf(reactiveScenario(
                  R"([{"type":"input","at_ms":500,"data":"a"},)"
                  R"({"type":"input","when":{"type":"output_literal","value":"p"},"data":"b"},)"
                  R"({"type":"input","at_ms":600,"data":"c"}])")),
              IsEmpty());
  EXPECT_THAT(issuesOf(reactiveScenario(
                  R"([{"type":"input","at_ms":500,"data":"a"},)"
                  R"({"type":"input","when":{"type":"output_literal","value":"p"},"data":"b"},)"
                  R"({"type":"input","at_ms":400,"data":"c"}])")),
              ElementsAre(HasSubstr("events[2].at_ms: events must be non-decreasing")));
  EXPECT_THAT(issuesOf(reactiveScenario(
                  R"([{"type":"input","at_ms":40000,"when":{"type":"root_exit"},"data":"b"}])")),
              ElementsAre("events[0].at_ms: must not exceed timeout_ms (30000)"));
}

TEST(ReactiveEventParse, MalformedConditionsNameTheirField) {
  auto one = [](const char* event) { return issuesOf(reactiveScenario(event)); };
  EXPECT_THAT(one(R"([{"type":"input","when":{"type":"output_literal"},"data":"b"}])"),
              ElementsAre("events[0].when.value: is required"));
  EXPECT_THAT(one(R"([{"type":"input","when":{"type":"output_literal","value":""},"data":"b"}])"),
              ElementsAre("events[0].when.value: must not be empty"));
  EXPECT_THAT(one(R"([{"type":"input","when":{"type":"output_regex","pattern":"a("},"data":"b"}])"),
              ElementsAre(HasSubstr("events[0].when.pattern: must be a POSIX extended regular")));
  EXPECT_THAT(one(R"([{"type":"input","when":{"type":"output_regex","pattern":"a*"},"data":"b"}])"),
              ElementsAre(HasSubstr("events[0].when.pattern: must not match the empty string")));
  EXPECT_THAT(
      one(R"([{"type":"input","when":{"type":"output_regex","pattern":"(a)\\1"},"data":"b"}])"),
      ElementsAre(HasSubstr("events[0].when.pattern: back-references")));
  EXPECT_THAT(
      one(R"([{"type":"input","when":{"type":"output_regex","pattern":"a{1,101}"},"data":"b"}])"),
      ElementsAre(HasSubstr("events[0].when.pattern: repetition bounds above 100")));
  EXPECT_THAT(
      one(R"([{"type":"input","when":{"type":"screen_literal","value":"x","row":1000},"data":"b"}])"),
      ElementsAre(HasSubstr("events[0].when.row: must be an integer from 0 to 999")));
  EXPECT_THAT(one(R"([{"type":"input","when":{"type":"prompt"},"data":"b"}])"),
              ElementsAre(HasSubstr("events[0].when.type: must be one of")));
  EXPECT_THAT(one(R"([{"type":"input","when":"name?","data":"b"}])"),
              ElementsAre("events[0].when: must be an object, got \"name?\""));
  EXPECT_THAT(one(R"([{"type":"input","when":{"type":"root_exit","value":"x"},"data":"b"}])"),
              ElementsAre("events[0].when.value: unknown key"));
  EXPECT_THAT(
      one(R"([{"type":"input","when":{"type":"output_literal","value":"p","occurrence":0},"data":"b"}])"),
      ElementsAre(HasSubstr("events[0].when.occurrence: must be an integer from 1 to 1000")));
  EXPECT_THAT(one(R"([{"type":"input","when":{"type":"checkpoint","name":"nope"},"data":"b"}])"),
              ElementsAre("events[0].when.name: must name a checkpoint declared in checkpoints, "
                          "got \"nope\""));
}

TEST(ReactiveEventParse, WaitingMembersNeedWhen) {
  EXPECT_THAT(
      issuesOf(reactiveScenario(
          R"([{"type":"input","at_ms":0,"data":"b","delay_ms":5,"timeout_ms":9,"on_timeout":"stop"}])")),
      ElementsAre(HasSubstr("events[0].delay_ms: requires when"),
                  HasSubstr("events[0].timeout_ms: requires when"),
                  HasSubstr("events[0].on_timeout: requires when")));
  EXPECT_THAT(issuesOf(reactiveScenario(
                  R"([{"type":"input","when":{"type":"root_exit"},"data":"b","timeout_ms":0,)"
                  R"("delay_ms":300001,"on_timeout":"abort"}])")),
              ElementsAre(HasSubstr("events[0].delay_ms: must be an integer from 0 to 300000"),
                          HasSubstr("events[0].timeout_ms: must be an integer from 1 to 300000"),
                          HasSubstr("events[0].on_timeout: must be one of")));
}

TEST(ReactiveEventParse, AConditionMayNotHoldASecretOrASensitiveInput) {
  Json input = reactiveScenario(
      R"([{"type":"input","at_ms":0,"data":"hunter2\r","sensitive":true},)"
      R"({"type":"input","when":{"type":"output_literal","value":"pw hunter2"},"data":"a"},)"
      R"({"type":"input","when":{"type":"output_regex","pattern":"tok-s3cret"},"data":"b"},)"
      R"({"type":"input","when":{"type":"screen_literal","value":"fine"},"data":"c"}])");
  input["environment"] = Json::parse(R"({"TOKEN":"tok-s3cret"})");
  input["secret_aliases"] = Json::parse(R"(["TOKEN"])");
  input["events"][0]["data"] = "hunter2";
  EXPECT_THAT(issuesOf(input), ElementsAre(HasSubstr("events[1].when.value: must not contain a "
                                                     "secret or a sensitive input"),
                                           HasSubstr("events[2].when.pattern: must not contain")));
}

Condition reactiveCondition(const char* json) {
  Scenario s = parsedOrFail(reactiveScenario(
      (std::string(R"([{"type":"input","data":"x","when":)") + json + "}]").c_str()));
  return s.events.empty() ? Condition{} : *s.events[0].when;
}

TEST(ConditionWatch, OutputLiteralCountsAcrossChunks) {
  ConditionWatch watch(
      reactiveCondition(R"({"type":"output_literal","value":"name? ","occurrence":2})"));
  EXPECT_TRUE(watch.watchesOutput());
  EXPECT_FALSE(watch.output("name"));
  EXPECT_FALSE(watch.output("? x na"));
  EXPECT_FALSE(watch.screen({"name? name? "}));  // not a screen condition
  EXPECT_TRUE(watch.output("me? "));
  EXPECT_TRUE(watch.held());
}

TEST(ConditionWatch, OutputRegexConsumesEachMatch) {
  ConditionWatch watch(
      reactiveCondition(R"({"type":"output_regex","pattern":"v[0-9]+\\.","occurrence":2})"));
  EXPECT_FALSE(watch.output("v1"));
  EXPECT_FALSE(watch.output("2. v"));  // "v12." is the first match, split across chunks
  EXPECT_FALSE(watch.output("x3."));   // " vx3." does not match
  EXPECT_TRUE(watch.output("v4."));
  EXPECT_TRUE(watch.held());
}

TEST(ConditionWatch, OutputRegexKeepsABoundedWindow) {
  ConditionWatch watch(reactiveCondition(R"({"type":"output_regex","pattern":"^begin"})"));
  EXPECT_FALSE(watch.output(std::string(10000, 'y')));
  EXPECT_FALSE(watch.output("ybegin"));
  ConditionWatch anchored(reactiveCondition(R"({"type":"output_regex","pattern":"\\$ $"})"));
  EXPECT_FALSE(anchored.output("$ ls\n"));
  EXPECT_TRUE(anchored.output("out\n$ "));
  ConditionWatch lineEnd(reactiveCondition(R"({"type":"output_regex","pattern":"v[0-9]+$"})"));
  EXPECT_FALSE(lineEnd.output("v12 x\r\n"));
  EXPECT_TRUE(lineEnd.output("v12\r\n"));  // the \r is left out: $ is the line's end
}

TEST(ConditionWatch, ScreenLiteralOnAnyRowOrOneRow) {
  ConditionWatch any(reactiveCondition(R"({"type":"screen_literal","value":"ready"})"));
  EXPECT_TRUE(any.watchesScreen());
  EXPECT_FALSE(any.output("ready"));
  EXPECT_FALSE(any.screen({"", "not yet"}));
  EXPECT_TRUE(any.screen({"", "  ready  "}));
  ConditionWatch row(reactiveCondition(R"({"type":"screen_literal","value":"ready","row":1})"));
  EXPECT_FALSE(row.screen({"ready", ""}));
  EXPECT_FALSE(row.screen({"ready"}));  // the row is not on this screen
  EXPECT_TRUE(row.screen({"", "ready"}));
}

TEST(ConditionWatch, CheckpointAndRootExit) {
  Json input =
      reactiveScenario(R"([{"type":"input","data":"x","when":{"type":"checkpoint","name":"a"}},)"
                       R"({"type":"input","data":"y","when":{"type":"root_exit"}}])");
  input["checkpoints"] = Json::parse(R"([{"name":"a","trigger":{"type":"settled"}},)"
                                     R"({"name":"b","trigger":{"type":"settled"}}])");
  Scenario s = parsedOrFail(input);
  ConditionWatch checkpoint(*s.events[0].when);
  EXPECT_FALSE(checkpoint.checkpoint("b"));
  EXPECT_FALSE(checkpoint.rootExited());
  EXPECT_TRUE(checkpoint.checkpoint("a"));
  ConditionWatch exit(*s.events[1].when);
  EXPECT_FALSE(exit.checkpoint("a"));
  EXPECT_TRUE(exit.rootExited());
}

}  // namespace
}  // namespace rea::evidence
