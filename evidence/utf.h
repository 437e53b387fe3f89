#pragma once
// UTF-8 / UTF-16 helpers shared by every evidence module.
//
// The baseline (SPEC B0.1) measures string lengths in UTF-16 code units and orders keys and
// file names by UTF-16 code units, because the reference implementation is JavaScript. Our
// strings are UTF-8; these functions give JavaScript's answers for them.
//
// Errors: none thrown. Invalid UTF-8 is treated byte-wise as if each bad byte were U+FFFD
// (one code unit), which is what a JavaScript UTF-8 decoder would have produced.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rea::evidence {

size_t decodeUtf8(std::string_view bytes, size_t pos, uint32_t& codePoint, bool& incomplete);
// Decodes the code point starting at `pos` (< bytes.size()) and returns its length (1-4). An
// ill-formed sequence gives U+FFFD and the length of its maximal invalid subpart (WHATWG: at
// least 1); `incomplete` is set when that is a valid prefix cut off by the end of the input.
// (A literal U+FFFD, EF BF BD, decodes as itself with length 3.)

size_t utf16Length(std::string_view utf8);
// Number of UTF-16 code units of the text (a code point above U+FFFF counts 2).

int compareUtf16(std::string_view a, std::string_view b);
// Three-way comparison of two UTF-8 strings in UTF-16 code-unit order (JavaScript's default
// string order, RFC 8785 key order). Returns <0, 0 or >0.

struct Utf16Less {
  bool operator()(std::string_view a, std::string_view b) const { return compareUtf16(a, b) < 0; }
};

bool isValidUtf8(std::string_view bytes);
// True if the bytes are well-formed UTF-8 (no overlongs, no surrogates, max U+10FFFF).

size_t completeUtf8Prefix(std::string_view bytes);
// Length of the longest prefix that does not end inside an incomplete (but so far valid) UTF-8
// sequence. Used to keep multibyte sequences whole across PTY reads: the bytes after the
// returned length are carried over to the next read.

std::string sanitizeUtf8(std::string_view bytes);
// The bytes with every ill-formed sequence replaced by U+FFFD (WHATWG decoder semantics).

}  // namespace rea::evidence
