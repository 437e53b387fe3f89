#pragma once
// ScenarioParser: the reader behind parseScenario (scenario.h), one member per element of B §3.
// Internal to the scenario-parse*.c++ files, which each define a part of it: the top level and
// plain settings (scenario-parse.c++), the interaction, i.e. checkpoints, triggers and events
// (scenario-parse-events.c++), and the dependencies, i.e. command shims and loopback replay
// (scenario-parse-dependencies.c++). Reading is done by StrictReader (types, bounds, unknown
// keys); this class knows the schema. While reading it collects the valid names and times as
// ScenarioFacts for the cross-field rules (scenario-rules.h).

#include <cstdint>
#include <string>
#include <vector>

#include "evidence/scenario-rules.h"
#include "evidence/scenario.h"
#include "evidence/strict-reader.h"

namespace rea::evidence {

class ScenarioParser {
 public:
  ScenarioParseResult parse(const Json& input);

  static constexpr size_t UNLIMITED = StrictReader::UNLIMITED;
  static constexpr int64_t NO_UPPER_BOUND = StrictReader::MAX_SAFE_INTEGER;
  static constexpr size_t MAX_BODY_UNITS = 1000000;

 private:
  StrictReader r;
  ScenarioFacts facts;

  // Reads an optional integer member into `out` (left at its default when absent).
  template <typename Int>
  void optionalInteger(const Json& object, const std::string& path, const char* key, int64_t min,
                       int64_t max, Int& out) {
    if (const Json* member = StrictReader::find(object, key)) {
      r.integer(*member, childPath(path, key), min, max, out);
    }
  }
  template <typename Int>
  void optionalInteger(const Json& object, const std::string& path, const char* key,
                       const Bound& bound, Int& out) {
    optionalInteger(object, path, key, bound.min, bound.max, out);
  }
  template <typename Int>
  bool requiredInteger(const Json& object, const std::string& path, const char* key, int64_t min,
                       int64_t max, Int& out) {
    const Json* member = r.require(object, path, key);
    return member != nullptr && r.integer(*member, childPath(path, key), min, max, out);
  }
  void optionalBoolean(const Json& object, const std::string& path, const char* key, bool& out) {
    if (const Json* member = StrictReader::find(object, key)) {
      r.boolean(*member, childPath(path, key), out);
    }
  }
  void requiredString(const Json& object, const std::string& path, const char* key, size_t maxUnits,
                      std::string& out) {
    if (const Json* member = r.require(object, path, key)) {
      r.string(*member, childPath(path, key), maxUnits, out);
    }
  }
  bool signal(const Json& value, const std::string& path, TargetSignal& out);
  bool checkedName(const Json& value, const std::string& path, size_t maxUnits, const char* extra,
                   const char* rule, std::string& out);
  void environmentNameList(const Json& value, const std::string& path, size_t maxItems,
                           std::vector<std::string>& out,
                           std::vector<ScenarioFacts::Indexed>& valid);

  // scenario-parse.c++: the top level, the terminal, the environment, limits, normalisation.
  void environment(const Json& value, const std::string& path, std::vector<NamedValue>& out);
  void headers(const Json& value, const std::string& path, std::vector<NamedValue>& out,
               bool response = false);
  Terminal terminal(const Json& value, const std::string& path);
  void checkpoint(const Json& value, const std::string& path, size_t index,
                  std::vector<CheckpointDeclaration>& out);
  bool trigger(const Json& value, const std::string& path, Trigger& out);
  void commandShim(const Json& value, const std::string& path, size_t index,
                   std::vector<CommandShim>& out);
  void route(const Json& value, const std::string& path, std::vector<Route>& out);
  void shimOutput(const Json& value, const std::string& path, std::vector<ShimOutput>& out);
  bool termination(const Json& value, const std::string& path, Termination& out);
  void event(const Json& value, const std::string& path, size_t index, std::vector<Event>& out);
  Limits limits(const Json& value, const std::string& path);
  Normalization normalization(const Json& value, const std::string& path);
  Replay replay(const Json& value, const std::string& path);
  void httpRoute(const Json& value, const std::string& path, std::vector<HttpRoute>& out);
  void webSocketConnection(const Json& value, const std::string& path,
                           std::vector<WebSocketConnection>& out);
};

}  // namespace rea::evidence
