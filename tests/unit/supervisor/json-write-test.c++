#include "supervisor/cli/json-write.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/unit/capture-fixture.h"
#include "evidence/capture.h"

namespace rea::supervisor {
namespace {

using evidence::Json;

TEST(CompactJson, WritesWhatDumpWrites) {
  std::string everyByte;
  for (int c = 1; c < 0x80; ++c)
    everyByte.push_back(static_cast<char>(c));
  Json value = {
      {"null", nullptr},
      {"yes", true},
      {"no", false},
      {"integers",
       {0, -1, 42, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
        std::numeric_limits<uint64_t>::max()}},
      {"fractions", {0.5, 1.0, -0.0, 3.14159, 1e300, 2.5e-8}},
      {"strings", {"", everyByte, "\"quoted\" \\ back", "é 雪 😀", std::string(1, '\0') + "x"}},
      {"empty", {{"object", Json::object()}, {"array", Json::array()}}},
      {"order", {{"z", 1}, {"a", 2}, {"m", {1, {2, {3}}}}}},
  };
  EXPECT_EQ(compactJson(value), value.dump());
  EXPECT_EQ(compactJson(Json("alone")), Json("alone").dump());
  EXPECT_EQ(compactJson(Json(7)), "7");
}

TEST(CompactJson, WritesACaptureAsDumpDoes) {
  Json capture = evidence::toJson(evidence::testing::sampleCapture());
  EXPECT_EQ(compactJson(capture), capture.dump());
}

TEST(CompactJson, GivesItsTextInPiecesInOrder) {
  // Long strings with escapes every few bytes (terminal output), over many pieces.
  std::mt19937 random(7);
  Json frames = Json::array();
  for (int i = 0; i < 3000; ++i) {
    std::string data;
    for (int j = 0; j < 200; ++j)
      data.push_back(random() % 9 == 0 ? '\x1b' : static_cast<char>('a' + random() % 26));
    frames.push_back({{"sequence", i}, {"data", data}});
  }
  Json value = {{"frames", frames}};
  std::string joined;
  size_t pieces = 0;
  writeCompactJson(value, [&](std::string_view piece) {
    ++pieces;
    joined.append(piece);
  });
  EXPECT_GT(pieces, 3u);
  EXPECT_EQ(joined, value.dump());
}

}  // namespace
}  // namespace rea::supervisor
