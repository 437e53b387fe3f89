#include "evidence/asciicast.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace rea::evidence {
namespace {

std::vector<Json> castLines(const std::string& cast) {
  std::vector<Json> lines;
  std::istringstream in(cast);
  std::string line;
  while (std::getline(in, line))
    lines.push_back(Json::parse(line));
  return lines;
}

InteractionEvent interaction(InteractionType type, int64_t atMs, std::string data,
                             InteractionOutcome outcome = InteractionOutcome::DISPATCHED) {
  InteractionEvent event;
  event.type = type;
  event.scheduledAtMs = atMs;
  event.dispatchedAtMs = atMs;
  event.data = std::move(data);
  event.outcome = outcome;
  return event;
}

Capture castCapture() {
  Capture capture;
  capture.manifest.startedAt = "2026-12-02T10:00:00.000Z";
  capture.manifest.scenario = Json::parse(R"({"terminal": {"columns": 100, "rows": 30}})");
  capture.frames.push_back({0, 0, "Name? "});
  capture.frames.push_back({1, 120, "hello \u00e9\r\n"});
  capture.frames.push_back({2, 300, "bye\r\n"});
  capture.interactionEvents.push_back(interaction(InteractionType::INPUT, 100, "ann\r"));
  capture.interactionEvents.push_back(interaction(InteractionType::RESIZE, 120, "90x20"));
  capture.interactionEvents.push_back(
      interaction(InteractionType::INPUT, 150, "<redacted-input:7-bytes>"));
  capture.interactionEvents.push_back(interaction(InteractionType::SIGNAL, 200, "SIGINT"));
  capture.interactionEvents.push_back(
      interaction(InteractionType::INPUT, 400, "late", InteractionOutcome::TARGET_EXITED));
  auto reply = interaction(InteractionType::INPUT, 10, "\x1b[1;1R");
  reply.automatic = true;
  capture.interactionEvents.push_back(reply);
  return capture;
}

TEST(Asciicast, WritesAHeaderWithTheScenarioTerminalAndStartTime) {
  auto lines = castLines(toAsciicast(castCapture()));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0]["version"], 2);
  EXPECT_EQ(lines[0]["width"], 100);
  EXPECT_EQ(lines[0]["height"], 30);
  EXPECT_EQ(lines[0]["timestamp"], 1796205600);
}

TEST(Asciicast, OrdersOutputResizesAndPlainInputsByTime) {
  auto lines = castLines(toAsciicast(castCapture()));
  std::vector<Json> expected = {
      Json::parse(R"([0.0, "o", "Name? "])"),  Json::parse(R"([0.1, "i", "ann\r"])"),
      Json::parse(R"([0.12, "r", "90x20"])"),  Json::parse(R"([0.12, "o", "hello é\r\n"])"),
      Json::parse(R"([0.3, "o", "bye\r\n"])"),
  };
  ASSERT_EQ(lines.size(), expected.size() + 1);
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(lines[i + 1], expected[i]) << i;
}

TEST(Asciicast, LeavesOutSensitiveUndispatchedAndAutomaticInputs) {
  std::string cast = toAsciicast(castCapture());
  EXPECT_EQ(cast.find("redacted-input"), std::string::npos);
  EXPECT_EQ(cast.find("late"), std::string::npos);
  EXPECT_EQ(cast.find("SIGINT"), std::string::npos);
  EXPECT_EQ(cast.find("1;1R"), std::string::npos);
}

TEST(Asciicast, DefaultsTo80x24WithoutAScenarioProjection) {
  Capture capture;
  auto lines = castLines(toAsciicast(capture));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["width"], 80);
  EXPECT_EQ(lines[0]["height"], 24);
  EXPECT_FALSE(lines[0].contains("timestamp"));
}

}  // namespace
}  // namespace rea::evidence
