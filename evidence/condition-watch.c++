#include "evidence/condition-watch.h"

namespace rea::evidence {

ConditionWatch::ConditionWatch(const Condition& condition) : condition(condition) {
  if (auto* c = std::get_if<OutputLiteralCondition>(&this->condition.kind)) {
    literal.emplace(c->value, uint64_t(c->occurrence));
  } else if (auto* c = std::get_if<OutputRegexCondition>(&this->condition.kind)) {
    regex.emplace(c->pattern, std::regex::ECMAScript);
  }
}

bool ConditionWatch::watchesOutput() const {
  return literal.has_value() || regex.has_value();
}

bool ConditionWatch::watchesScreen() const {
  return std::holds_alternative<ScreenLiteralCondition>(condition.kind);
}

bool ConditionWatch::output(std::string_view chunk) {
  if (isHeld) return true;
  if (literal) {
    if (literal->feed(chunk)) isHeld = true;
    return isHeld;
  }
  if (!regex) return false;
  const auto& c = std::get<OutputRegexCondition>(condition.kind);
  window.append(chunk);
  std::smatch match;
  while (std::regex_search(window, match, *regex)) {
    // Consume through the match; an empty match (rejected by the parser) still consumes one
    // byte so this loop always ends.
    size_t end = size_t(match.position(0) + match.length(0));
    window.erase(0, end == 0 ? 1 : end);
    if (++matches >= c.occurrence) {
      isHeld = true;
      window.clear();
      return true;
    }
  }
  if (window.size() > MAX_REGEX_WINDOW) {
    size_t cut = window.size() - MAX_REGEX_WINDOW;
    while (cut < window.size() && (static_cast<unsigned char>(window[cut]) & 0xC0) == 0x80)
      ++cut;
    window.erase(0, cut);  // never starts inside a UTF-8 sequence
  }
  return false;
}

bool ConditionWatch::screen(const std::vector<std::string>& lines) {
  if (isHeld) return true;
  auto* c = std::get_if<ScreenLiteralCondition>(&condition.kind);
  if (c == nullptr) return false;
  if (c->row) {
    size_t row = size_t(*c->row);
    isHeld = row < lines.size() && lines[row].find(c->value) != std::string::npos;
  } else {
    for (const auto& line : lines) {
      if (line.find(c->value) != std::string::npos) isHeld = true;
    }
  }
  return isHeld;
}

bool ConditionWatch::checkpoint(const std::string& name) {
  auto* c = std::get_if<CheckpointCondition>(&condition.kind);
  if (c != nullptr && c->name == name) isHeld = true;
  return isHeld;
}

bool ConditionWatch::rootExited() {
  if (std::holds_alternative<RootExitCondition>(condition.kind)) isHeld = true;
  return isHeld;
}

bool matchesEmpty(const std::string& pattern) {
  return std::regex_search(std::string(), std::regex(pattern, std::regex::ECMAScript));
}

}  // namespace rea::evidence
