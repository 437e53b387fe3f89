#include "supervisor/cli/scenario-recording.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "evidence/limits.h"

namespace rea::supervisor {
namespace {

bool isControl(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

// Skips an escape sequence starting at `i` (ESC): CSI up to its final byte, OSC/DCS up to BEL
// or ST, anything else two bytes. Returns the index after it.
size_t skipEscape(std::string_view s, size_t i) {
  if (i + 1 >= s.size()) return s.size();
  char kind = s[i + 1];
  size_t j = i + 2;
  if (kind == '[') {
    while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e))
      ++j;
    return std::min(s.size(), j + 1);
  }
  if (kind == ']' || kind == 'P' || kind == '_' || kind == '^') {
    while (j < s.size() && s[j] != '\a' &&
           !(s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\'))
      ++j;
    return std::min(s.size(), j + (j < s.size() && s[j] == '\x1b' ? 2 : 1));
  }
  return j;
}

std::string echoOf(std::string_view keys) {
  // What a terminal in canonical mode with echo shows for typed keys: printable text as is,
  // Enter as a new line. Other keys (editing, Ctrl-C) make the echo unpredictable: "" then.
  std::string echo;
  for (char c : keys) {
    if (c == '\r' || c == '\n') {
      echo += "\r\n";
    } else if (isControl(static_cast<unsigned char>(c))) {
      return "";
    } else {
      echo += c;
    }
  }
  return echo;
}

}  // namespace

std::string lastPrintableRun(std::string_view s) {
  std::string last;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b) {
      i = skipEscape(s, i);
      continue;
    }
    if (isControl(c)) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < s.size() && !isControl(static_cast<unsigned char>(s[i])))
      ++i;
    std::string_view run = s.substr(start, i - start);
    if (run.find_first_not_of(' ') != std::string_view::npos) last = std::string(run);
  }
  if (last.size() > ScenarioRecording::MAX_LITERAL_BYTES) {
    size_t cut = last.size() - ScenarioRecording::MAX_LITERAL_BYTES;
    while (cut < last.size() && (static_cast<unsigned char>(last[cut]) & 0xC0) == 0x80)
      ++cut;
    last.erase(0, cut);
  }
  return last;
}

void ScenarioRecording::output(std::string_view bytes) {
  sinceEvent.append(bytes);
  std::string text = lastPrintableRun(bytes);
  if (!text.empty()) lastText = text;
}

void ScenarioRecording::input(std::string_view bytes) {
  if (bytes.empty()) return;
  bool onlyEcho = !events.empty() && !events.back().resize &&
                  (sinceEvent.empty() || (!echoOfLast.empty() && sinceEvent == echoOfLast));
  if (onlyEcho) {
    // The target only echoed the previous keys: these belong to the same answer.
    events.back().data.append(bytes);
    echoOfLast = echoOf(bytes);
    sinceEvent.clear();
    return;
  }
  Recorded event;
  event.data = std::string(bytes);
  event.literal = lastPrintableRun(sinceEvent);
  events.push_back(std::move(event));
  echoOfLast = echoOf(bytes);
  sinceEvent.clear();
}

void ScenarioRecording::resize(int columns, int rows) {
  Recorded event;
  event.resize = true;
  event.columns = columns;
  event.rows = rows;
  event.literal = lastText;
  event.onScreen = true;
  events.push_back(std::move(event));
  echoOfLast.clear();
  sinceEvent.clear();
}

evidence::Json ScenarioRecording::scenario(const RecordedTarget& target, int64_t elapsedMs) const {
  using evidence::Json;
  Json list = Json::array();
  for (const auto& recorded : events) {
    Json event = Json::object();
    event["type"] = recorded.resize ? "resize" : "input";
    if (recorded.literal.empty()) {
      event["at_ms"] = 0;  // typed before the target printed anything: at once
    } else {
      event["when"] = Json{{"type", recorded.onScreen ? "screen_literal" : "output_literal"},
                           {"value", recorded.literal}};
      event["timeout_ms"] = EVENT_TIMEOUT_MS;
    }
    if (recorded.resize) {
      event["columns"] = evidence::clampedTo(evidence::terminal::COLUMNS, recorded.columns);
      event["rows"] = evidence::clampedTo(evidence::terminal::ROWS, recorded.rows);
    } else {
      event["data"] = recorded.data;
    }
    list.push_back(std::move(event));
  }
  int64_t timeout = std::min<int64_t>(
      300000, std::max<int64_t>(
                  30000, 2 * elapsedMs + EVENT_TIMEOUT_MS * static_cast<int64_t>(events.size())));
  Json scenario = Json::object();
  scenario["approved"] = true;
  scenario["executable"] = target.executable;
  scenario["arguments"] = target.arguments;
  scenario["working_directory"] = target.workingDirectory;
  scenario["environment"] = Json{{"PATH", target.path}};
  scenario["terminal"] =
      Json{{"columns", evidence::clampedTo(evidence::terminal::COLUMNS, target.columns)},
           {"rows", evidence::clampedTo(evidence::terminal::ROWS, target.rows)}};
  scenario["events"] = std::move(list);
  scenario["timeout_ms"] = timeout;
  scenario["idle_timeout_ms"] = timeout;
  return scenario;
}

}  // namespace rea::supervisor
