// ScenarioParser (scenario-parser.h), the interaction: checkpoints and their triggers, and the
// scripted events (B §3.2-§3.4), with the conditions an event may wait for (scenario-condition.h).

#include <string>
#include <variant>
#include <vector>
#include <nlohmann/json.hpp>

#include "evidence/scenario-condition.h"
#include "evidence/scenario-parser.h"

namespace rea::evidence {

void ScenarioParser::checkpoint(const Json& value, const std::string& path, size_t index,
                                std::vector<CheckpointDeclaration>& out) {
  if (!r.object(value, path, {"name", "trigger"})) return;
  size_t before = r.issueCount();
  CheckpointDeclaration c;
  if (const Json* name = r.require(value, path, "name")) {
    if (checkedName(*name, childPath(path, "name"), 64, "_-",
                    "must start with a letter or digit and contain only letters, digits, _ and -",
                    c.name)) {
      facts.checkpointNames.emplace_back(index, c.name);
    }
  }
  if (const Json* trig = r.require(value, path, "trigger")) {
    trigger(*trig, childPath(path, "trigger"), c.trigger);
  }
  if (r.issueCount() == before) out.push_back(std::move(c));
}

bool ScenarioParser::trigger(const Json& value, const std::string& path, Trigger& out) {
  if (!value.is_object()) {
    r.fail(path, "must be an object, got " + StrictReader::describe(value));
    return false;
  }
  const Json* type = r.require(value, path, "type");
  size_t kind;
  if (type == nullptr || !r.oneOf(*type, childPath(path, "type"),
                                  {"time", "terminal_literal", "root_exit", "settled"}, kind)) {
    return false;
  }
  size_t before = r.issueCount();
  switch (kind) {
    case 0: {
      r.object(value, path, {"type", "at_ms"});
      TimeTrigger time;
      requiredInteger(value, path, "at_ms", 0, 300000, time.atMs);
      out.kind = time;
      break;
    }
    case 1: {
      r.object(value, path, {"type", "value", "occurrence"});
      TerminalLiteralTrigger literal;
      if (const Json* text = r.require(value, path, "value")) {
        std::string valuePath = childPath(path, "value");
        if (r.string(*text, valuePath, 10000, literal.value) && literal.value.empty()) {
          r.fail(valuePath, "must not be empty");
        }
      }
      optionalInteger(value, path, "occurrence", 1, 1000, literal.occurrence);
      out.kind = literal;
      break;
    }
    case 2:
      r.object(value, path, {"type"});
      out.kind = RootExitTrigger{};
      break;
    default:
      r.object(value, path, {"type"});
      out.kind = SettledTrigger{};
      break;
  }
  return r.issueCount() == before;
}

bool ScenarioParser::termination(const Json& value, const std::string& path, Termination& out) {
  if (!value.is_object()) {
    r.fail(path, "must be an object, got " + StrictReader::describe(value));
    return false;
  }
  const Json* type = r.require(value, path, "type");
  size_t kind;
  if (type == nullptr || !r.oneOf(*type, childPath(path, "type"), {"exit", "signal"}, kind)) {
    return false;
  }
  size_t before = r.issueCount();
  if (kind == 0) {
    r.object(value, path, {"type", "code"});
    ExitTermination exit;
    requiredInteger(value, path, "code", 0, 255, exit.code);
    out.kind = exit;
  } else {
    r.object(value, path, {"type", "signal"});
    SignalTermination sig;
    if (const Json* name = r.require(value, path, "signal")) {
      signal(*name, childPath(path, "signal"), sig.signal);
    }
    out.kind = sig;
  }
  return r.issueCount() == before;
}

void ScenarioParser::event(const Json& value, const std::string& path, size_t index,
                           std::vector<Event>& out) {
  if (!value.is_object()) {
    r.fail(path, "must be an object, got " + StrictReader::describe(value));
    return;
  }
  const Json* type = r.require(value, path, "type");
  size_t kind;
  if (type == nullptr ||
      !r.oneOf(*type, childPath(path, "type"), {"input", "resize", "signal"}, kind)) {
    return;
  }
  size_t before = r.issueCount();
  Event e;
  readReactiveMembers(r, value, path, e);
  bool waits = StrictReader::find(value, "when") != nullptr;
  // An event that waits may omit at_ms (then 0: no earliest time).
  bool timed = waits ? StrictReader::find(value, "at_ms") == nullptr ||
                           r.integer(*StrictReader::find(value, "at_ms"), childPath(path, "at_ms"),
                                     0, NO_UPPER_BOUND, e.atMs)
                     : requiredInteger(value, path, "at_ms", 0, NO_UPPER_BOUND, e.atMs);
  if (timed) {
    facts.eventTimes.emplace_back(index, e.atMs);
    if (!waits) facts.orderedEventTimes.emplace_back(index, e.atMs);
  }
  if (e.when) {
    if (auto* checkpoint = std::get_if<CheckpointCondition>(&e.when->kind)) {
      facts.conditionCheckpoints.emplace_back(index, checkpoint->name);
    }
  }
  if (kind == 0) {
    r.object(
        value, path,
        {"type", "at_ms", "data", "sensitive", "when", "delay_ms", "timeout_ms", "on_timeout"});
    InputAction input;
    requiredString(value, path, "data", UNLIMITED, input.data);
    optionalBoolean(value, path, "sensitive", input.sensitive);
    e.action = std::move(input);
  } else if (kind == 1) {
    r.object(value, path,
             {"type", "at_ms", "columns", "rows", "when", "delay_ms", "timeout_ms", "on_timeout"});
    ResizeAction resize;
    requiredInteger(value, path, "columns", terminal::COLUMNS.min, terminal::COLUMNS.max,
                    resize.columns);
    requiredInteger(value, path, "rows", terminal::ROWS.min, terminal::ROWS.max, resize.rows);
    e.action = resize;
  } else {
    r.object(value, path,
             {"type", "at_ms", "signal", "when", "delay_ms", "timeout_ms", "on_timeout"});
    SignalAction sig;
    if (const Json* name = r.require(value, path, "signal")) {
      signal(*name, childPath(path, "signal"), sig.signal);
    }
    e.action = sig;
  }
  if (r.issueCount() == before) out.push_back(std::move(e));
}

}  // namespace rea::evidence
