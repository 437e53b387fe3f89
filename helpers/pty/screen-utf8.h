#pragma once
// UTF-8 as libvterm 0.1.4's decoder reads it, for the Renderer's width check (write path). Its
// decoder keeps an unfinished sequence across text runs, and what it makes of one depends on
// where the runs end: a sequence cut short by the next character is a U+FFFD within a run, but
// dropped without a trace when a run (a write, or the text after a control) starts with the next
// lead byte. Where the PTY's reads cut the output must not matter, so the Renderer keeps back a
// sequence split at the end of a chunk until it is complete, and hands libvterm a U+FFFD of its
// own for every sequence cut short, so libvterm never has one unfinished at the end of a run.
//
// Errors: none (std::bad_alloc).

#include <cstddef>
#include <string>
#include <string_view>

namespace rea::helper {

inline size_t utf8SequenceLength(unsigned char lead) {
  // The bytes libvterm expects from this lead byte on (0xc0 to 0xfd: 2 to 6), or 0 for a byte
  // that starts no sequence (ASCII, a continuation byte, 0xfe, 0xff).
  return lead >= 0xfe   ? 0
         : lead >= 0xfc ? 6
         : lead >= 0xf8 ? 5
         : lead >= 0xf0 ? 4
         : lead >= 0xe0 ? 3
         : lead >= 0xc0 ? 2
                        : 0;
}

inline bool isUtf8Continuation(unsigned char c) {
  return (c & 0xc0) == 0x80;
}

std::string replaceTruncatedUtf8(std::string_view bytes, size_t& offset);
// `bytes` with each sequence cut short by a byte that does not continue it replaced by U+FFFD
// (EF BF BD), as libvterm shows it within a text run; one unfinished at the very end stays.
// `offset` (an offset into `bytes`, or npos) is mapped to the same place in the result.

}  // namespace rea::helper
