#include "evidence/normalise-rule.h"

#include "evidence/ascii.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "evidence/host-port.h"

namespace rea::evidence {

// ---------------------------------------------------------------------------------------------
// Substitution

Substitution::Substitution(std::string_view replacement) {
  std::string literal;
  auto flush = [this, &literal]() {
    if (!literal.empty()) pieces.push_back({Part::LITERAL, std::move(literal)});
    literal.clear();
  };
  auto push = [this, &flush](Part part) {
    flush();
    pieces.push_back({part, {}});
  };
  for (size_t i = 0; i < replacement.size();) {
    char c = replacement[i];
    if (c != '$' || i + 1 == replacement.size()) {
      literal += c;
      ++i;
      continue;
    }
    switch (replacement[i + 1]) {
      case '$':
        literal += '$';
        break;
      case '&':
        push(Part::MATCH);
        break;
      case '`':
        push(Part::BEFORE);
        before = true;
        break;
      case '\'':
        push(Part::AFTER);
        after = true;
        break;
      default:
        // `$1`, `$<name>`, `$x`: literal. Only the `$` is consumed so the next character is
        // looked at again (`$$$&` is `$` then the match).
        literal += '$';
        ++i;
        continue;
    }
    i += 2;
  }
  flush();
}

void Substitution::expand(std::string_view textBefore, std::string_view match,
                          std::string_view textAfter, std::string& out) const {
  for (auto& piece : pieces) {
    switch (piece.part) {
      case Part::LITERAL:
        out += piece.literal;
        break;
      case Part::MATCH:
        out += match;
        break;
      case Part::BEFORE:
        out += textBefore;
        break;
      case Part::AFTER:
        out += textAfter;
        break;
    }
  }
}

namespace {

// ---------------------------------------------------------------------------------------------
// Literal needle

class LiteralRule final : public NormaliseRule {
 public:
  LiteralRule(std::string needle, std::string_view replacement)
      : needle(std::move(needle)), substitution(replacement) {}

  size_t lookback() const override { return substitution.usesBefore() ? WHOLE_HISTORY : 0; }

  RuleProgress apply(std::string_view input, size_t start, bool final,
                     std::string& out) const override {
    size_t pos = start;
    for (;;) {
      size_t match = input.find(needle, pos);
      if (match == std::string_view::npos) break;
      out.append(input.substr(pos, match - pos));
      if (substitution.usesAfter() && !final) return {match, true};
      substitution.expand(
          substitution.usesBefore() ? input.substr(0, match) : std::string_view(), needle,
          substitution.usesAfter() ? input.substr(match + needle.size()) : std::string_view(), out);
      pos = match + needle.size();
    }
    size_t keep = final ? 0 : heldSuffix(input.substr(pos));
    size_t end = input.size() - keep;
    out.append(input.substr(pos, end - pos));
    return {end, false};
  }

 private:
  std::string needle;
  Substitution substitution;

  size_t heldSuffix(std::string_view tail) const {
    // Longest suffix of `tail` that is a proper prefix of the needle: the start of an
    // occurrence that the next input may complete. No occurrence can start earlier and still be
    // open, since a complete occurrence inside a shorter prefix of the needle is impossible.
    size_t longest = std::min(needle.size() - 1, tail.size());
    for (size_t k = longest; k > 0; --k) {
      const char* at = tail.data() + tail.size() - k;
      if (*at == needle[0] && std::memcmp(at, needle.data(), k) == 0) return k;
    }
    return 0;
  }
};

// ---------------------------------------------------------------------------------------------
// Empty needle

// Length of the character at `pos` as JavaScript would count it after WHATWG decoding: a
// well-formed sequence, or one maximal invalid subpart. Returns 0 when the sequence is a valid
// prefix cut off by the end of a non-final input (it must wait for the next read).
size_t characterLength(std::string_view s, size_t pos, bool final) {
  auto b0 = static_cast<unsigned char>(s[pos]);
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 < 0x80) {
    return 1;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  for (size_t i = 1; i <= need; ++i) {
    if (pos + i >= s.size()) return final ? i : 0;
    auto b = static_cast<unsigned char>(s[pos + i]);
    if (b < lo || b > hi) return i;
    lo = 0x80;
    hi = 0xBF;
  }
  return need + 1;
}

class EveryPositionRule final : public NormaliseRule {
 public:
  explicit EveryPositionRule(std::string_view replacement) : substitution(replacement) {}

  size_t lookback() const override { return substitution.usesBefore() ? WHOLE_HISTORY : 0; }

  RuleProgress apply(std::string_view input, size_t start, bool final,
                     std::string& out) const override {
    bool before = substitution.usesBefore(), after = substitution.usesAfter();
    size_t pos = start;
    while (pos < input.size()) {
      size_t n = characterLength(input, pos, final);
      if (n == 0) break;
      if (after && !final) return {pos, true};
      substitution.expand(before ? input.substr(0, pos) : std::string_view(), {},
                          after ? input.substr(pos) : std::string_view(), out);
      out.append(input.substr(pos, n));
      pos += n;
    }
    // The insertion at the very end belongs to the final call alone, so it happens once.
    if (final) substitution.expand(before ? input : std::string_view(), {}, {}, out);
    return {pos, false};
  }

 private:
  Substitution substitution;
};

// ---------------------------------------------------------------------------------------------
// Digit tokens (pids, harness ports) and host:port numbers

class DigitTokenRule final : public NormaliseRule {
 public:
  DigitTokenRule(std::vector<std::string> tokenList, bool hostPorts, std::string replacement)
      : hostPorts(hostPorts), replacement(std::move(replacement)) {
    for (auto& token : tokenList) {
      for (size_t n = 1; n <= token.size(); ++n)
        prefixes.insert(token.substr(0, n));
      longestToken = std::max(longestToken, token.size());
      tokens.insert(std::move(token));
    }
  }

  size_t lookback() const override {
    // One byte tells whether a run at `start` continues a released run; the port context
    // needs the colon plus its window.
    return hostPorts ? HOST_CONTEXT_WINDOW + 1 : 1;
  }

  RuleProgress apply(std::string_view input, size_t start, bool final,
                     std::string& out) const override {
    size_t copied = start;
    size_t i = start;
    while (i < input.size()) {
      if (!isAsciiDigit(input[i])) {
        ++i;
        continue;
      }
      size_t runStart = i;
      while (i < input.size() && isAsciiDigit(input[i]))
        ++i;
      // A run that began in consumed input was released because it could not match; its
      // continuation cannot match either.
      if (runStart == start && start > 0 && isAsciiDigit(input[start - 1])) continue;
      std::string_view run = input.substr(runStart, i - runStart);
      bool open = i == input.size() && !final;
      if (open ? couldBecomeMatch(input, runStart, run) : isMatch(input, runStart, run)) {
        out.append(input.substr(copied, runStart - copied));
        if (open) return {runStart, false};
        out += replacement;
        copied = i;
      }
    }
    out.append(input.substr(copied));
    return {input.size(), false};
  }

 private:
  std::unordered_set<std::string> tokens;
  std::unordered_set<std::string> prefixes;
  size_t longestToken = 0;
  bool hostPorts;
  std::string replacement;

  bool inHostPortContext(std::string_view input, size_t runStart, size_t runLength) const {
    return hostPorts && runLength <= 5 && runStart >= 1 && input[runStart - 1] == ':' &&
           isHostPortContext(input.substr(0, runStart - 1));
  }

  bool couldBecomeMatch(std::string_view input, size_t runStart, std::string_view run) const {
    return (run.size() <= longestToken && prefixes.count(std::string(run)) > 0) ||
           inHostPortContext(input, runStart, run.size());
  }

  bool isMatch(std::string_view input, size_t runStart, std::string_view run) const {
    if (run.size() <= longestToken && tokens.count(std::string(run)) > 0) return true;
    size_t end = runStart + run.size();
    return run.size() >= 2 && inHostPortContext(input, runStart, run.size()) &&
           (end == input.size() || !isAsciiWord(input[end]));
  }
};

}  // namespace

std::unique_ptr<NormaliseRule> NormaliseRule::literal(std::string needle,
                                                      std::string_view replacement) {
  if (needle.empty()) return everyPosition(replacement);
  return std::make_unique<LiteralRule>(std::move(needle), replacement);
}

std::unique_ptr<NormaliseRule> NormaliseRule::everyPosition(std::string_view replacement) {
  return std::make_unique<EveryPositionRule>(replacement);
}

std::unique_ptr<NormaliseRule> NormaliseRule::digitTokens(std::vector<std::string> tokens,
                                                          bool hostPorts, std::string replacement) {
  return std::make_unique<DigitTokenRule>(std::move(tokens), hostPorts, std::move(replacement));
}

}  // namespace rea::evidence
