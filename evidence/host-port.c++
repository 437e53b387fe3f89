#include "evidence/host-port.h"

#include "evidence/ascii.h"

namespace rea::evidence {
namespace {

bool isHostChar(char c) {
  return isAsciiAlnum(c) || c == '.' || c == '_' || c == '~' || c == '-';
}
bool isZoneChar(char c) {
  return isHostChar(c);
}
bool isIpv6Char(char c) {
  return isAsciiHex(c) || c == ':' || c == '.';
}
bool isUserinfoChar(char c) {
  switch (c) {
    case '.':
    case '_':
    case '~':
    case '-':
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
    case ':':
    case '%':
      return true;
    default:
      return isAsciiAlnum(c);
  }
}

// Number of consecutive characters satisfying `pred` that end at `end` (exclusive), counting
// at most `limit + 1` so that callers can tell "too long" from "fits".
template <typename Pred>
size_t runBefore(std::string_view s, size_t end, size_t limit, Pred pred) {
  size_t n = 0;
  while (n <= limit && n < end && pred(s[end - 1 - n]))
    ++n;
  return n;
}

bool endsWithLocalhost(std::string_view s) {
  static constexpr std::string_view NAME = "localhost";
  if (s.size() < NAME.size()) return false;
  std::string_view tail = s.substr(s.size() - NAME.size());
  for (size_t i = 0; i < NAME.size(); ++i) {
    char c = tail[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != NAME[i]) return false;
  }
  return true;
}

bool endsWithIpv4(std::string_view s) {
  size_t end = s.size();
  for (int part = 0; part < 4; ++part) {
    size_t n = runBefore(s, end, 3, isAsciiDigit);
    if (n == 0 || n > 3) return false;
    int value = 0;
    for (size_t i = end - n; i < end; ++i)
      value = value * 10 + (s[i] - '0');
    if (value > 255) return false;
    end -= n;
    if (part < 3) {
      if (end == 0 || s[end - 1] != '.') return false;
      --end;
    }
  }
  return end == 0 || !(isAsciiWord(s[end - 1]) || s[end - 1] == '.');
}

bool endsWithIpv6Literal(std::string_view s) {
  size_t end = s.size();
  if (end == 0 || s[end - 1] != ']') return false;
  --end;
  // Optional zone: `%zone` right before the bracket.
  size_t zone = runBefore(s, end, 64, isZoneChar);
  if (zone >= 1 && zone <= 64 && end - zone >= 1 && s[end - zone - 1] == '%') end -= zone + 1;
  size_t n = runBefore(s, end, 45, isIpv6Char);
  if (n < 2 || n > 45) return false;
  size_t colons = 0;
  for (size_t i = end - n; i < end; ++i)
    colons += s[i] == ':';
  if (colons < 2) return false;
  end -= n;
  return end >= 1 && s[end - 1] == '[';
}

bool endsWithUrlAuthority(std::string_view s) {
  size_t end = s.size();
  size_t host = runBefore(s, end, 253, isHostChar);
  if (host == 0 || host > 253) return false;
  end -= host;
  if (end >= 1 && s[end - 1] == '@') {
    --end;
    size_t user = runBefore(s, end, 128, isUserinfoChar);
    if (user > 128) return false;
    end -= user;
  }
  return end >= 4 && s.substr(end - 3, 3) == "://" && isAsciiAlnum(s[end - 4]);
}

}  // namespace

bool isHostPortContext(std::string_view beforeColon) {
  if (beforeColon.size() > HOST_CONTEXT_WINDOW) {
    beforeColon = beforeColon.substr(beforeColon.size() - HOST_CONTEXT_WINDOW);
  }
  return endsWithLocalhost(beforeColon) || endsWithIpv4(beforeColon) ||
         endsWithIpv6Literal(beforeColon) || endsWithUrlAuthority(beforeColon);
}

}  // namespace rea::evidence
