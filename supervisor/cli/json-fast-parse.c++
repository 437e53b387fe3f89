#include "supervisor/cli/json-fast-parse.h"

#include <cstdint>
#include <cstring>

#include <nlohmann/json.hpp>

#include "evidence/utf.h"

namespace rea::supervisor {
namespace {

using evidence::Json;

constexpr uint64_t ONES = 0x0101010101010101ull;
constexpr uint64_t HIGHS = 0x8080808080808080ull;

// Whether any byte of `word` is below `n` (n <= 128), or zero: exact for the whole word.
constexpr uint64_t anyBelow(uint64_t word, uint64_t n) {
  return (word - ONES * n) & ~word & HIGHS;
}
constexpr uint64_t anyZero(uint64_t word) {
  return anyBelow(word, 1);
}

// Eight bytes that a string copies as they are: ASCII from 0x20, neither `"` nor `\`.
bool plainWord(const char* at) {
  uint64_t word;
  std::memcpy(&word, at, sizeof(word));
  return ((word & HIGHS) | anyBelow(word, 0x20) | anyZero(word ^ (ONES * '"')) |
          anyZero(word ^ (ONES * '\\'))) == 0;
}

// Per byte: whether a string copies it as it is, and its value as a hex digit (or -1).
struct ByteTables {
  bool plain[256];
  int8_t hex[256];
  constexpr ByteTables() : plain(), hex() {
    for (int c = 0; c < 256; ++c) {
      plain[c] = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
      hex[c] = c >= '0' && c <= '9'   ? static_cast<int8_t>(c - '0')
               : c >= 'a' && c <= 'f' ? static_cast<int8_t>(c - 'a' + 10)
               : c >= 'A' && c <= 'F' ? static_cast<int8_t>(c - 'A' + 10)
                                      : int8_t{-1};
    }
  }
};
constexpr ByteTables BYTES;

bool plainByte(unsigned char c) {
  return BYTES.plain[c];
}

int hexDigit(char c) {
  return BYTES.hex[static_cast<unsigned char>(c)];
}

// Writes `cp` as UTF-8 at `to`; returns the end.
char* appendUtf8(char* to, uint32_t cp) {
  if (cp < 0x80) {
    *to++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    *to++ = static_cast<char>(0xC0 | (cp >> 6));
    *to++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *to++ = static_cast<char>(0xE0 | (cp >> 12));
    *to++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *to++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *to++ = static_cast<char>(0xF0 | (cp >> 18));
    *to++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *to++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *to++ = static_cast<char>(0x80 | (cp & 0x3F));
  }
  return to;
}

class Parser {
 public:
  Parser(std::string_view text, size_t maxDepth, ParseProgress* progress = nullptr)
      : begin(text.data()),
        at(text.data()),
        end(text.data() + text.size()),
        maxDepth(maxDepth),
        progress(progress),
        nextReport(progress != nullptr ? REPORT_EVERY : SIZE_MAX) {}

  bool document(Json& out) {
    skipSpace();
    if (!value(out, 0)) return false;
    skipSpace();
    return at == end;
  }

 private:
  static constexpr size_t REPORT_EVERY = 1 << 20;
  const char* begin;
  const char* at;
  const char* end;
  size_t maxDepth;
  ParseProgress* progress;
  size_t nextReport;  // the offset of the next report; SIZE_MAX when nobody listens
  std::string scratch;

  void skipSpace() {
    while (at < end && (*at == ' ' || *at == '\n' || *at == '\r' || *at == '\t'))
      ++at;
  }

  bool literal(const char* word, size_t size) {
    if (static_cast<size_t>(end - at) < size || std::memcmp(at, word, size) != 0) return false;
    at += size;
    return true;
  }

  bool value(Json& out, size_t depth) {
    if (at == end) return false;
    switch (*at) {
      case '{':
        return object(out, depth + 1);
      case '[':
        return array(out, depth + 1);
      case '"': {
        ++at;
        std::string text;
        if (!string(text)) return false;
        out = std::move(text);
        return true;
      }
      case 't':
        out = true;
        return literal("true", 4);
      case 'f':
        out = false;
        return literal("false", 5);
      case 'n':
        out = nullptr;
        return literal("null", 4);
      default:
        return number(out);
    }
  }

  bool object(Json& out, size_t depth) {
    if (depth > maxDepth) return false;
    ++at;  // {
    out = Json::object();
    skipSpace();
    if (at < end && *at == '}') {
      ++at;
      return true;
    }
    for (;;) {
      if (at == end || *at != '"') return false;
      ++at;
      std::string key;
      if (!string(key)) return false;
      skipSpace();
      if (at == end || *at != ':') return false;
      ++at;
      skipSpace();
      // operator[], as nlohmann's parser: a repeated key keeps its place and takes the new value.
      if (!value(out[key], depth)) return false;
      skipSpace();
      if (at == end) return false;
      if (*at == '}') {
        ++at;
        return true;
      }
      if (*at != ',') return false;
      ++at;
      skipSpace();
    }
  }

  bool array(Json& out, size_t depth) {
    if (depth > maxDepth) return false;
    ++at;  // [
    out = Json::array();
    auto& items = out.get_ref<Json::array_t&>();
    skipSpace();
    if (at < end && *at == ']') {
      ++at;
      return true;
    }
    for (;;) {
      items.emplace_back();
      if (!value(items.back(), depth)) return false;
      skipSpace();
      if (at == end) return false;
      if (*at == ']') {
        ++at;
        return true;
      }
      if (*at != ',') return false;
      ++at;
      skipSpace();
      size_t offset = static_cast<size_t>(at - begin);
      if (offset >= nextReport) {
        progress->consumed(offset);
        nextReport = offset + REPORT_EVERY;
      }
    }
  }

  // An integer of at most 64 bits; anything else is declined (nlohmann reads it with strtod).
  bool number(Json& out) {
    bool negative = at < end && *at == '-';
    if (negative) ++at;
    const char* digits = at;
    uint64_t magnitude = 0;
    while (at < end && *at >= '0' && *at <= '9') {
      if (__builtin_mul_overflow(magnitude, 10, &magnitude) ||
          __builtin_add_overflow(magnitude, static_cast<uint64_t>(*at - '0'), &magnitude)) {
        return false;
      }
      ++at;
    }
    size_t count = static_cast<size_t>(at - digits);
    if (count == 0 || (count > 1 && *digits == '0')) return false;
    if (at < end && (*at == '.' || *at == 'e' || *at == 'E')) return false;
    if (!negative) {
      out = magnitude;
    } else if (magnitude <= uint64_t{1} << 63) {
      out = static_cast<int64_t>(0 - magnitude);  // two's complement: 2^63 is INT64_MIN
    } else {
      return false;
    }
    return true;
  }

  // After the opening quote; consumes the closing one. The raw length bounds the decoded one
  // (escapes only shrink), so the string is decoded into a scratch buffer of that size and then
  // copied into a string of its own size (a capture's escaped output is half its raw length).
  bool string(std::string& out) {
    const char* close = closingQuote();
    if (close == nullptr) return false;
    if (scratch.size() < static_cast<size_t>(close - at)) scratch.resize(close - at);
    char* to = &scratch[0];
    while (at < close) {
      const char* run = at;
      while (close - at >= 8 && plainWord(at))
        at += 8;
      while (at < close && plainByte(static_cast<unsigned char>(*at)))
        ++at;
      std::memcpy(to, run, static_cast<size_t>(at - run));
      to += at - run;
      if (at == close) break;
      auto c = static_cast<unsigned char>(*at);
      if (c == '\\') {
        if (!escape(to, close)) return false;
      } else if (c < 0x20 || !utf8Sequence(to, close)) {
        return false;
      }
    }
    out.assign(scratch.data(), static_cast<size_t>(to - scratch.data()));
    at = close + 1;
    return true;
  }

  // The `"` that ends the string starting at `at` (one after an even run of backslashes, which
  // is how sequential decoding sees it too), or nullptr.
  const char* closingQuote() const {
    const char* from = at;
    for (;;) {
      auto* quote =
          static_cast<const char*>(std::memchr(from, '"', static_cast<size_t>(end - from)));
      if (quote == nullptr) return nullptr;
      size_t slashes = 0;
      for (const char* p = quote; p > at && p[-1] == '\\'; --p)
        ++slashes;
      if (slashes % 2 == 0) return quote;
      from = quote + 1;
    }
  }

  bool escape(char*& to, const char* close) {
    if (close - at < 2) return false;
    char kind = at[1];
    at += 2;
    switch (kind) {
      case '"':
      case '\\':
      case '/':
        *to++ = kind;
        return true;
      case 'b':
        *to++ = '\b';
        return true;
      case 'f':
        *to++ = '\f';
        return true;
      case 'n':
        *to++ = '\n';
        return true;
      case 'r':
        *to++ = '\r';
        return true;
      case 't':
        *to++ = '\t';
        return true;
      case 'u':
        break;
      default:
        return false;
    }
    uint32_t cp;
    if (close - at >= 4 && at[0] == '0' && at[1] == '0') {
      // \u00XX, the form JSON writers give control characters (ESC in terminal output): most
      // escapes of a capture.
      int high = hexDigit(at[2]), low = hexDigit(at[3]);
      if (high < 0 || low < 0) return false;
      at += 4;
      to = appendUtf8(to, static_cast<uint32_t>(high << 4 | low));
      return true;
    }
    if (!hex4(cp, close)) return false;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t low;
      if (close - at < 2 || at[0] != '\\' || at[1] != 'u') return false;
      at += 2;
      if (!hex4(low, close) || low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    to = appendUtf8(to, cp);
    return true;
  }

  bool hex4(uint32_t& out, const char* close) {
    if (close - at < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      int digit = hexDigit(at[i]);
      if (digit < 0) return false;
      out = out << 4 | static_cast<uint32_t>(digit);
    }
    at += 4;
    return true;
  }

  // One well-formed UTF-8 sequence of two to four bytes (no overlong forms, surrogates or code
  // points above U+10FFFF: what nlohmann accepts), copied as it is. evidence/utf.h decodes it;
  // it is well-formed when the decoder took as many bytes as its lead byte announces.
  bool utf8Sequence(char*& to, const char* close) {
    auto b0 = static_cast<unsigned char>(*at);
    size_t announced = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : 2;
    uint32_t codePoint;
    bool incomplete;
    size_t length = evidence::decodeUtf8(std::string_view(at, static_cast<size_t>(close - at)), 0,
                                         codePoint, incomplete);
    if (length != announced) return false;
    std::memcpy(to, at, length);
    to += length;
    at += length;
    return true;
  }
};

}  // namespace

std::optional<Json> parseJsonFast(std::string_view text, size_t maxDepth) {
  Json value;
  if (!Parser(text, maxDepth).document(value)) return std::nullopt;
  return value;
}

std::optional<Json> parseJsonFast(std::string_view text, size_t maxDepth, ParseProgress& progress) {
  Json value;
  if (!Parser(text, maxDepth, &progress).document(value)) return std::nullopt;
  return value;
}

}  // namespace rea::supervisor
