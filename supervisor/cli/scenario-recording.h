#pragma once
// ScenarioRecording: turns what `rea record-scenario` saw of a terminal session (the target's
// output, the keys typed, the resizes) into a scenario whose events wait for the screen
// (docs/scenario-events.md). Pure: the command (record-command.c++) owns the PTY.
//
// Each input waits for the text the target printed last before it was typed: the last run of
// printable text of the output since the previous event (`output_literal`, so it is counted only
// after the previous event was dispatched, as at recording time). Keys typed while the target
// only echoed them join the previous input, so a word typed key by key is one event. A resize
// waits for that text on the screen (`screen_literal`). Every event gets a timeout_ms, so a
// replay whose screen differs records `timed_out` and goes on rather than hanging.
//
// Errors: none thrown (apart from std::bad_alloc).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/json.h"

namespace rea::supervisor {

struct RecordedTarget {
  std::string executable;  // absolute
  std::vector<std::string> arguments;
  std::string workingDirectory;
  std::string path;  // the PATH the target saw
  int columns = 80;
  int rows = 24;
};

class ScenarioRecording {
 public:
  static constexpr size_t MAX_LITERAL_BYTES = 200;
  static constexpr int64_t EVENT_TIMEOUT_MS = 10000;

  void output(std::string_view bytes);
  void input(std::string_view bytes);
  void resize(int columns, int rows);

  evidence::Json scenario(const RecordedTarget& target, int64_t elapsedMs) const;
  // The scenario, valid for parseScenario(); timeout_ms covers the recording's length and the
  // waits (at most 300000).

  size_t eventCount() const { return events.size(); }

 private:
  struct Recorded {
    bool resize = false;
    std::string data;     // input
    std::string literal;  // what it waits for; empty: nothing (the first keys before output)
    bool onScreen = false;
    int columns = 0;
    int rows = 0;
  };
  std::vector<Recorded> events;
  std::string sinceEvent;  // output since the last event
  std::string lastText;    // the last printable run of all output so far
  std::string echoOfLast;  // what the terminal would echo for the last input's keys
};

std::string lastPrintableRun(std::string_view output);
// The last run of printable text (no control character, no escape sequence) with something
// other than spaces in it, at most MAX_LITERAL_BYTES long (cut at a UTF-8 boundary); "" if none.

}  // namespace rea::supervisor
