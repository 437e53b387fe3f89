#include "evidence/literal-trigger.h"

#include <cstdint>

#include "evidence/utf.h"

namespace rea::evidence {
namespace {

// Appends one code point (or U+FFFD for an ill-formed sequence) starting at `pos` as UTF-16 and
// returns the number of bytes consumed.
size_t appendOne(std::string_view s, size_t pos, std::u16string& out) {
  uint32_t value;
  bool incomplete;
  size_t length = decodeUtf8(s, pos, value, incomplete);
  if (value > 0xFFFF) {
    value -= 0x10000;
    out.push_back(static_cast<char16_t>(0xD800 + (value >> 10)));
    out.push_back(static_cast<char16_t>(0xDC00 + (value & 0x3FF)));
  } else {
    out.push_back(static_cast<char16_t>(value));
  }
  return length;
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
