#include "evidence/literal-trigger.h"

#include <cstdint>

namespace rea::evidence {
namespace {

// Appends one code point (or U+FFFD for an ill-formed sequence) starting at `pos` and returns
// the number of bytes consumed: the maximal subpart rule of the WHATWG decoder, as utf.c++ does.
size_t appendOne(std::string_view s, size_t pos, std::u16string& out) {
  auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) {
    out.push_back(b0);
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
    out.push_back(0xFFFD);
    return 1;
  }
  for (size_t i = 1; i <= need; ++i) {
    if (pos + i >= s.size()) {
      out.push_back(0xFFFD);
      return i;
    }
    auto b = static_cast<unsigned char>(s[pos + i]);
    if (b < lo || b > hi) {
      out.push_back(0xFFFD);
      return i;
    }
    lo = 0x80;
    hi = 0xBF;
    value = (value << 6) | (b & 0x3F);
  }
  if (value > 0xFFFF) {
    value -= 0x10000;
    out.push_back(static_cast<char16_t>(0xD800 + (value >> 10)));
    out.push_back(static_cast<char16_t>(0xDC00 + (value & 0x3FF)));
  } else {
    out.push_back(static_cast<char16_t>(value));
  }
  return need + 1;
}

}  // namespace

std::u16string toUtf16(std::string_view utf8) {
  std::u16string out;
  out.reserve(utf8.size());
  for (size_t pos = 0; pos < utf8.size();)
    pos += appendOne(utf8, pos, out);
  return out;
}

LiteralTrigger::LiteralTrigger(std::string_view value, uint64_t occurrence)
    : value(toUtf16(value)), occurrence(occurrence) {}

bool LiteralTrigger::feed(std::string_view normalisedChunk) {
  return feed(std::u16string_view(toUtf16(normalisedChunk)));
}

bool LiteralTrigger::feed(std::u16string_view normalisedChunk) {
  std::u16string combined;
  combined.reserve(carried.size() + normalisedChunk.size());
  combined += carried;
  combined += normalisedChunk;

  if (!value.empty()) {
    for (size_t at = combined.find(value); at != std::u16string::npos;
         at = combined.find(value, at + value.size())) {
      ++counted;
    }
  }
  size_t keep = value.empty() ? 0 : value.size() - 1;
  carried = combined.size() > keep ? combined.substr(combined.size() - keep) : combined;

  if (hasFired || counted < occurrence) return false;
  hasFired = true;
  return true;
}

}  // namespace rea::evidence
