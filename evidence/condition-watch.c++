#include "evidence/condition-watch.h"

#include <regex.h>

#include <cctype>

namespace rea::evidence {

struct ConditionWatch::Pattern {
  regex_t compiled;
  bool valid = false;
  explicit Pattern(const std::string& text) {
    valid = regcomp(&compiled, text.c_str(), REG_EXTENDED | REG_NEWLINE) == 0;
  }
  ~Pattern() {
    if (valid) regfree(&compiled);
  }
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;
};

ConditionWatch::ConditionWatch(const Condition& condition) : condition(condition) {
  if (auto* c = std::get_if<OutputLiteralCondition>(&this->condition.kind)) {
    literal.emplace(c->value, uint64_t(c->occurrence));
  } else if (auto* c = std::get_if<OutputRegexCondition>(&this->condition.kind)) {
    regex = std::make_shared<Pattern>(c->pattern);
  }
}

bool ConditionWatch::watchesOutput() const {
  return literal.has_value() || regex != nullptr;
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
  if (!regex || !regex->valid) return false;
  const auto& c = std::get<OutputRegexCondition>(condition.kind);
  // Carriage returns are left out, so `$` matches at the end of a terminal line ("\r\n");
  // a NUL becomes a space (regexec reads a C string).
  for (char c : chunk) {
    if (c != '\r') window.push_back(c == '\0' ? ' ' : c);
  }
  regmatch_t match;
  while (regexec(&regex->compiled, window.c_str(), 1, &match, 0) == 0) {
    // Consume through the match; an empty match (rejected by the parser) still consumes one
    // byte so this loop always ends.
    size_t end = size_t(match.rm_eo);
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

bool checkPattern(const std::string& pattern, std::string& error) {
  if (pattern.find('\0') != std::string::npos) {
    error = "must not contain NUL";
    return false;
  }
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] == '\\' && std::isdigit(static_cast<unsigned char>(pattern[i + 1]))) {
      error = "back-references (\\1) are not allowed";
      return false;
    }
    if (pattern[i] == '{') {
      size_t j = i + 1;
      while (j < pattern.size() &&
             (std::isdigit(static_cast<unsigned char>(pattern[j])) || pattern[j] == ',')) {
        if (std::isdigit(static_cast<unsigned char>(pattern[j]))) {
          size_t k = j;
          while (k < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[k])))
            ++k;
          if (k - j > 3 || std::stoi(pattern.substr(j, k - j)) > 100) {
            error = "repetition bounds above 100 are not allowed";
            return false;
          }
          j = k;
        } else {
          ++j;
        }
      }
    }
  }
  regex_t compiled;
  int code = regcomp(&compiled, pattern.c_str(), REG_EXTENDED | REG_NEWLINE);
  if (code != 0) {
    char message[256];
    regerror(code, &compiled, message, sizeof(message));
    error = std::string("must be a POSIX extended regular expression: ") + message;
    return false;
  }
  bool empty = regexec(&compiled, "", 0, nullptr, 0) == 0;
  regfree(&compiled);
  if (empty) {
    error = "must not match the empty string (it would hold at once)";
    return false;
  }
  return true;
}

}  // namespace rea::evidence
