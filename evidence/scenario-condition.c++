// readReactiveMembers (scenario-condition.h): the `when` object of an event and its companions.

#include "evidence/scenario-condition.h"

#include <nlohmann/json.hpp>

#include "evidence/condition-watch.h"

namespace rea::evidence {

const char* const REACTIVE_EVENT_KEYS[4] = {"when", "delay_ms", "timeout_ms", "on_timeout"};

namespace {

constexpr int64_t MAX_WAIT_MS = 300000;

bool nonEmptyString(StrictReader& r, const Json& object, const std::string& path, const char* key,
                    size_t maxUnits, std::string& out) {
  const Json* member = r.require(object, path, key);
  if (member == nullptr) return false;
  std::string memberPath = childPath(path, key);
  if (!r.string(*member, memberPath, maxUnits, out)) return false;
  if (out.empty()) {
    r.fail(memberPath, "must not be empty");
    return false;
  }
  return true;
}

void occurrence(StrictReader& r, const Json& object, const std::string& path, int& out) {
  if (const Json* member = StrictReader::find(object, "occurrence")) {
    r.integer(*member, childPath(path, "occurrence"), 1, 1000, out);
  }
}

bool condition(StrictReader& r, const Json& value, const std::string& path, Condition& out) {
  if (!value.is_object()) {
    r.fail(path, "must be an object, got " + StrictReader::describe(value));
    return false;
  }
  const Json* type = r.require(value, path, "type");
  size_t kind;
  if (type == nullptr ||
      !r.oneOf(*type, childPath(path, "type"),
               {"output_literal", "output_regex", "screen_literal", "checkpoint", "root_exit"},
               kind)) {
    return false;
  }
  size_t before = r.issueCount();
  switch (kind) {
    case 0: {
      r.object(value, path, {"type", "value", "occurrence"});
      OutputLiteralCondition literal;
      nonEmptyString(r, value, path, "value", 10000, literal.value);
      occurrence(r, value, path, literal.occurrence);
      out.kind = std::move(literal);
      break;
    }
    case 1: {
      r.object(value, path, {"type", "pattern", "occurrence"});
      OutputRegexCondition regex;
      if (nonEmptyString(r, value, path, "pattern", 1000, regex.pattern)) {
        std::string error;
        if (!checkPattern(regex.pattern, error)) r.fail(childPath(path, "pattern"), error);
      }
      occurrence(r, value, path, regex.occurrence);
      out.kind = std::move(regex);
      break;
    }
    case 2: {
      r.object(value, path, {"type", "value", "row"});
      ScreenLiteralCondition screen;
      nonEmptyString(r, value, path, "value", 1000, screen.value);
      if (const Json* row = StrictReader::find(value, "row")) {
        int number = 0;
        if (r.integer(*row, childPath(path, "row"), 0, 999, number)) screen.row = number;
      }
      out.kind = std::move(screen);
      break;
    }
    case 3: {
      r.object(value, path, {"type", "name"});
      CheckpointCondition checkpoint;
      nonEmptyString(r, value, path, "name", 64, checkpoint.name);
      out.kind = std::move(checkpoint);
      break;
    }
    default:
      r.object(value, path, {"type"});
      out.kind = RootExitCondition{};
      break;
  }
  return r.issueCount() == before;
}

}  // namespace

void checkConditionsHoldNoSecret(const Scenario& scenario, StrictReader& r) {
  std::vector<std::string> secrets;
  for (const auto& alias : scenario.secretAliases) {
    for (const auto& entry : scenario.environment) {
      if (entry.name == alias && !entry.value.empty()) secrets.push_back(entry.value);
    }
  }
  for (const auto& event : scenario.events) {
    auto* input = std::get_if<InputAction>(&event.action);
    if (input != nullptr && input->sensitive && !input->data.empty()) {
      secrets.push_back(input->data);
    }
  }
  for (size_t i = 0; i < scenario.events.size(); ++i) {
    const auto& when = scenario.events[i].when;
    if (!when) continue;
    std::string text, key;
    if (auto* c = std::get_if<OutputLiteralCondition>(&when->kind)) {
      text = c->value, key = "value";
    } else if (auto* c = std::get_if<OutputRegexCondition>(&when->kind)) {
      text = c->pattern, key = "pattern";
    } else if (auto* c = std::get_if<ScreenLiteralCondition>(&when->kind)) {
      text = c->value, key = "value";
    }
    for (const auto& secret : secrets) {
      if (!key.empty() && text.find(secret) != std::string::npos) {
        r.fail(childPath(childPath(indexPath("events", i), "when"), key),
               "must not contain a secret or a sensitive input (A3): output is matched after "
               "redaction");
        break;
      }
    }
  }
}

bool readReactiveMembers(StrictReader& r, const Json& event, const std::string& path, Event& out) {
  size_t before = r.issueCount();
  const Json* when = StrictReader::find(event, "when");
  if (when != nullptr) {
    Condition parsed;
    if (condition(r, *when, childPath(path, "when"), parsed)) out.when = std::move(parsed);
  }
  auto needsWhen = [&](const char* key) {
    if (when == nullptr && StrictReader::find(event, key) != nullptr) {
      r.fail(childPath(path, key),
             "requires when: only an event that waits has " + std::string(key));
      return false;
    }
    return StrictReader::find(event, key) != nullptr;
  };
  if (needsWhen("delay_ms")) {
    r.integer(*StrictReader::find(event, "delay_ms"), childPath(path, "delay_ms"), 0, MAX_WAIT_MS,
              out.delayMs);
  }
  if (needsWhen("timeout_ms")) {
    int64_t timeout = 0;
    if (r.integer(*StrictReader::find(event, "timeout_ms"), childPath(path, "timeout_ms"), 1,
                  MAX_WAIT_MS, timeout)) {
      out.timeoutMs = timeout;
    }
  }
  if (needsWhen("on_timeout")) {
    size_t index = 0;
    if (r.oneOf(*StrictReader::find(event, "on_timeout"), childPath(path, "on_timeout"),
                {"continue", "stop"}, index)) {
      out.onTimeout = index == 0 ? OnTimeout::CONTINUE : OnTimeout::STOP;
    }
  }
  return r.issueCount() == before;
}

}  // namespace rea::evidence
