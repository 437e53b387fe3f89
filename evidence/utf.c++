#include "evidence/utf.h"

#include <cstdint>
#include <cstring>

namespace rea::evidence {

namespace {

// The length of the run of ASCII bytes at `pos`, looked at eight at a time: most text is ASCII,
// and decoding it byte by byte was most of checking a capture's frames.
size_t asciiRun(std::string_view s, size_t pos) {
  size_t start = pos;
  while (pos + 8 <= s.size()) {
    uint64_t word;
    std::memcpy(&word, s.data() + pos, sizeof(word));
    if ((word & 0x8080808080808080ull) != 0) break;
    pos += 8;
  }
  while (pos < s.size() && static_cast<unsigned char>(s[pos]) < 0x80)
    ++pos;
  return pos - start;
}

}  // namespace

size_t decodeUtf8(std::string_view s, size_t pos, uint32_t& cp, bool& incomplete) {
  incomplete = false;
  auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  size_t need;
  uint32_t value;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    value = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    value = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    value = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    cp = 0xFFFD;
    return 1;
  }
  size_t i = 1;
  for (; i <= need; ++i) {
    if (pos + i >= s.size()) {
      incomplete = true;
      cp = 0xFFFD;
      return i;
    }
    auto b = static_cast<unsigned char>(s[pos + i]);
    if (b < lo || b > hi) {
      cp = 0xFFFD;
      return i;
    }
    lo = 0x80;
    hi = 0xBF;
    value = (value << 6) | (b & 0x3F);
  }
  cp = value;
  return need + 1;
}

size_t utf16Length(std::string_view s) {
  size_t units = 0;
  for (size_t pos = 0; pos < s.size();) {
    size_t ascii = asciiRun(s, pos);
    units += ascii;
    pos += ascii;
    if (pos == s.size()) break;
    uint32_t cp;
    bool incomplete;
    pos += decodeUtf8(s, pos, cp, incomplete);
    units += cp > 0xFFFF ? 2 : 1;
  }
  return units;
}

int compareUtf16(std::string_view a, std::string_view b) {
  // UTF-8 byte order equals code-point order; UTF-16 order differs only where one side is a
  // supplementary code point (surrogates D800-DFFF) and the other is in E000-FFFF.
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint32_t ca, cb;
    bool inc;
    size_t la = decodeUtf8(a, i, ca, inc);
    size_t lb = decodeUtf8(b, j, cb, inc);
    if (ca != cb) {
      auto firstUnit = [](uint32_t cp) -> uint32_t {
        return cp > 0xFFFF ? 0xD800 + ((cp - 0x10000) >> 10) : cp;
      };
      uint32_t ua = firstUnit(ca), ub = firstUnit(cb);
      if (ua != ub) return ua < ub ? -1 : 1;
      // Same high surrogate: compare the low surrogates, i.e. the code points.
      return ca < cb ? -1 : 1;
    }
    i += la;
    j += lb;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

// A decoded U+FFFD is an error unless it was the literal sequence EF BF BD.
bool isDecodeError(std::string_view s, size_t pos, size_t n, uint32_t cp, bool incomplete) {
  return cp == 0xFFFD && !(n == 3 && static_cast<unsigned char>(s[pos]) == 0xEF && !incomplete);
}

bool isValidUtf8(std::string_view s) {
  for (size_t pos = 0; pos < s.size();) {
    pos += asciiRun(s, pos);
    if (pos == s.size()) break;
    uint32_t cp;
    bool incomplete;
    size_t n = decodeUtf8(s, pos, cp, incomplete);
    if (isDecodeError(s, pos, n, cp, incomplete)) return false;
    pos += n;
  }
  return true;
}

size_t completeUtf8Prefix(std::string_view s) {
  // Look back at most 3 bytes for the start of a sequence that runs past the end.
  size_t start = s.size() >= 3 ? s.size() - 3 : 0;
  for (size_t pos = s.size(); pos > start;) {
    --pos;
    auto b = static_cast<unsigned char>(s[pos]);
    if ((b & 0xC0) == 0x80) continue;  // continuation byte: keep looking for the lead
    uint32_t cp;
    bool incomplete;
    decodeUtf8(s, pos, cp, incomplete);
    return incomplete ? pos : s.size();
  }
  return s.size();
}

std::string sanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) {
    size_t ascii = asciiRun(s, pos);
    out.append(s.substr(pos, ascii));
    pos += ascii;
    if (pos == s.size()) break;
    uint32_t cp;
    bool incomplete;
    size_t n = decodeUtf8(s, pos, cp, incomplete);
    if (isDecodeError(s, pos, n, cp, incomplete)) {
      out += "\xEF\xBF\xBD";
    } else {
      out.append(s.substr(pos, n));
    }
    pos += n;
  }
  return out;
}

}  // namespace rea::evidence
