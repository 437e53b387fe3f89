#include "evidence/asciicast.h"

#include <algorithm>
#include <regex>

#include <nlohmann/json.hpp>

#include "evidence/timestamp.h"

namespace rea::evidence {
namespace {

struct CastEvent {
  int64_t atMs;
  int rank;  // at one instant, what the user did comes before what the program printed
  const char* code;
  const std::string* data;
};

// The scenario's initial terminal size, from the committed full scenario projection.
std::pair<int64_t, int64_t> initialSize(const Capture& capture) {
  int64_t columns = 80, rows = 24;
  const Json& scenario = *capture.manifest.scenario;
  if (scenario.is_object() && scenario.contains("terminal") && scenario["terminal"].is_object()) {
    const Json& terminal = scenario["terminal"];
    if (terminal.contains("columns") && terminal["columns"].is_number_integer())
      columns = terminal["columns"].get<int64_t>();
    if (terminal.contains("rows") && terminal["rows"].is_number_integer())
      rows = terminal["rows"].get<int64_t>();
  }
  return {columns, rows};
}

// A sensitive input is stored only as its placeholder (A3): it is not replayed as an "i" event.
bool isRedactedInput(const std::string& data) {
  static const std::regex placeholder("<redacted-input:[0-9]+-bytes>");
  return std::regex_match(data, placeholder);
}

}  // namespace

std::string toAsciicast(const Capture& capture) {
  auto [columns, rows] = initialSize(capture);
  Json header = Json::object();
  header["version"] = 2;
  header["width"] = columns;
  header["height"] = rows;
  if (auto started = parseIsoTimestamp(capture.manifest.startedAt)) {
    header["timestamp"] = *started / 1000;
  }
  std::string out = header.dump() + "\n";

  std::vector<CastEvent> events;
  for (const auto& frame : capture.frames) {
    events.push_back({frame.atMs, 1, "o", &frame.data});
  }
  for (const auto& interaction : capture.interactionEvents) {
    if (interaction.outcome != InteractionOutcome::DISPATCHED) continue;
    if (interaction.type == InteractionType::RESIZE) {
      events.push_back({interaction.dispatchedAtMs, 0, "r", &interaction.data});
    } else if (interaction.type == InteractionType::INPUT && !isRedactedInput(interaction.data) &&
               !interaction.automatic.value_or(false)) {
      events.push_back({interaction.dispatchedAtMs, 0, "i", &interaction.data});
    }
  }
  std::stable_sort(events.begin(), events.end(), [](const CastEvent& a, const CastEvent& b) {
    return a.atMs != b.atMs ? a.atMs < b.atMs : a.rank < b.rank;
  });
  for (const auto& event : events) {
    Json line = Json::array();
    line.push_back(static_cast<double>(event.atMs) / 1000.0);
    line.push_back(event.code);
    line.push_back(*event.data);
    out += line.dump() + "\n";
  }
  return out;
}

}  // namespace rea::evidence
