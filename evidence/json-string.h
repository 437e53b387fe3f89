#pragma once
// One JSON string literal, escaped as RFC 8785 (canonical-json.h) writes it: `"` and `\`
// escaped; \b \t \n \f \r; other bytes below 0x20 as \u00xx (lowercase hex); every other byte
// as it is. Header-only and free of exceptions and libraries, so that the shim client
// (helpers/shim/client/, built without exceptions and without rea-evidence) writes its JSON
// exactly as canonical JSON does.
//
// Errors: none. The bytes are not checked: ill-formed UTF-8 stays ill-formed (callers that take
// arbitrary bytes sanitise them first, utf.h).

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace rea::evidence {

namespace json_string_detail {

// Whether `c` is written as it is.
inline bool plain(unsigned char c) {
  return c >= 0x20 && c != '"' && c != '\\';
}

// Whether all eight bytes at `at` are plain: none below 0x20, none `"` or `\`. Word-wise
// tests for a byte below n (n <= 128) are exact for the whole word.
inline bool plainWord(const char* at) {
  constexpr uint64_t ONES = 0x0101010101010101ull, HIGHS = 0x8080808080808080ull;
  auto below = [](uint64_t word, uint64_t n) { return (word - ONES * n) & ~word & HIGHS; };
  uint64_t word;
  std::memcpy(&word, at, sizeof(word));
  return (below(word, 0x20) | below(word ^ (ONES * '"'), 1) | below(word ^ (ONES * '\\'), 1)) == 0;
}

}  // namespace json_string_detail

inline void appendJsonString(std::string& out, std::string_view text) {
  static const char HEX[] = "0123456789abcdef";
  // The text is escaped a piece at a time into a local buffer (six bytes at most per byte) that
  // is appended whole, and runs of plain bytes are copied eight at a time: byte-wise appends
  // were a large part of hashing a capture (its Evidence id covers every frame).
  constexpr size_t PIECE = 1024;
  char buffer[6 * PIECE];
  out.push_back('"');
  const char* at = text.data();
  const char* end = at + text.size();
  while (at < end) {
    size_t rest = static_cast<size_t>(end - at);
    const char* stop = at + (rest < PIECE ? rest : PIECE);
    char* to = buffer;
    while (at < stop) {
      const char* run = at;
      while (stop - at >= 8 && json_string_detail::plainWord(at))
        at += 8;
      while (at < stop && json_string_detail::plain(static_cast<unsigned char>(*at)))
        ++at;
      std::memcpy(to, run, static_cast<size_t>(at - run));
      to += at - run;
      if (at == stop) break;
      auto c = static_cast<unsigned char>(*at++);
      *to++ = '\\';
      switch (c) {
        case '"':
        case '\\':
          *to++ = static_cast<char>(c);
          break;
        case '\b':
          *to++ = 'b';
          break;
        case '\t':
          *to++ = 't';
          break;
        case '\n':
          *to++ = 'n';
          break;
        case '\f':
          *to++ = 'f';
          break;
        case '\r':
          *to++ = 'r';
          break;
        default:
          *to++ = 'u';
          *to++ = '0';
          *to++ = '0';
          *to++ = HEX[c >> 4];
          *to++ = HEX[c & 0xF];
      }
    }
    out.append(buffer, static_cast<size_t>(to - buffer));
  }
  out.push_back('"');
}
// Appends `text` to `out` as a JSON string literal (quotes included).

}  // namespace rea::evidence
