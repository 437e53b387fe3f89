#include "evidence/normalise.h"

#include <algorithm>

#include "evidence/normalise-rule.h"
#include "evidence/utf.h"

namespace rea::evidence {

std::optional<std::string> sensitiveEcho(std::string_view inputData) {
  size_t end = inputData.size();
  while (end > 0 && (inputData[end - 1] == '\r' || inputData[end - 1] == '\n'))
    --end;
  std::string_view echo = inputData.substr(0, end);
  if (utf16Length(echo) < 4) return std::nullopt;
  return std::string(echo);
}

std::optional<std::string> caretEcho(std::string_view echo) {
  std::string caret;
  bool changed = false;
  for (char c : echo) {
    auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t' && c != '\n' && c != '\r') || byte == 0x7f) {
      caret += '^';
      caret += static_cast<char>(byte ^ 0x40);
      changed = true;
    } else {
      caret += c;
    }
  }
  if (!changed) return std::nullopt;
  return caret;
}

Normaliser::Normaliser(const NormaliseContext& context) {
  auto literal = [this](std::string needle, std::string_view replacement) {
    if (!needle.empty()) ruleList.push_back(NormaliseRule::literal(std::move(needle), replacement));
  };

  // A3: no part of a secret may survive. B replaces secrets in alias order, which leaves the tail
  // of a longer secret visible when a shorter one is its prefix ("abc" then "abcdef" gives
  // "<redacted>def"); redacting the longest values first closes that gap (stable for equals).
  std::vector<std::string> secrets;
  for (auto& secret : context.secrets)
    secrets.push_back(secret);
  for (auto& input : context.sensitiveInputs) {
    if (auto echo = sensitiveEcho(input)) {
      // Issue 18.3: a terminal with ECHOCTL echoes control characters as ^X.
      if (auto caret = caretEcho(*echo)) secrets.push_back(std::move(*caret));
      secrets.push_back(std::move(*echo));
    }
  }
  std::stable_sort(secrets.begin(), secrets.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (auto& secret : secrets)
    literal(std::move(secret), "<redacted>");

  // The placeholders contain no `$`, so the JavaScript replacement semantics are inert here.
  if (context.normalisePaths) {
    literal(context.temporaryRoot, "<temporary-root>");
    literal(context.workingDirectory, "<working-directory>");
    literal(context.executable, "<executable>");
    for (size_t i = 0; i < context.filesystemRoots.size(); ++i) {
      literal(context.filesystemRoots[i], "<filesystem-root-" + std::to_string(i) + ">");
    }
  }

  if (context.normalisePids) {
    std::vector<std::string> tokens;
    for (int64_t pid : context.pids) {
      if (pid > 0) tokens.push_back(std::to_string(pid));
    }
    if (!tokens.empty()) {
      ruleList.push_back(NormaliseRule::digitTokens(std::move(tokens), false, "<pid>"));
    }
  }

  if (context.normalisePorts) {
    std::vector<std::string> tokens;
    for (int64_t port : context.harnessPorts) {
      if (port >= 1 && port <= 65535) tokens.push_back(std::to_string(port));
    }
    ruleList.push_back(NormaliseRule::digitTokens(std::move(tokens), true, "<port>"));
  }

  // Patterns keep their empty form: an empty pattern is a real rule (insert everywhere).
  for (auto& pattern : context.patterns) {
    ruleList.push_back(NormaliseRule::literal(pattern.pattern, pattern.replacement));
  }
}

Normaliser::~Normaliser() noexcept(false) = default;
Normaliser::Normaliser(Normaliser&&) = default;
Normaliser& Normaliser::operator=(Normaliser&&) = default;

std::string Normaliser::operator()(std::string_view text) const {
  std::string current(text);
  std::string next;
  for (auto& rule : ruleList) {
    next.clear();
    // Headroom for placeholders longer than what they replace, so most rules never reallocate.
    next.reserve(current.size() + current.size() / 8 + 64);
    rule->apply(current, 0, true, next);
    current.swap(next);
  }
  // The headroom is kept by the Evidence that holds the result (every frame's text, a capture's
  // largest part): give it back when it is more than a little.
  if (current.capacity() > current.size() + current.size() / 16 + 32) current.shrink_to_fit();
  return current;
}

std::string normalise(std::string_view text, const NormaliseContext& context) {
  return Normaliser(context)(text);
}

}  // namespace rea::evidence
