#pragma once
// Combining marks that arrive in a later write than their base. Within one vterm_input_write,
// libvterm 0.1.4 joins a combining mark (and U+200B, ZWJ, a variation selector: whatever its
// table calls combining) to the glyph before it, wherever that glyph is. Across writes it only
// does so if the cursor is just past that glyph; a glyph at the right edge leaves the cursor on
// it (autowrap pending, or autowrap off), and libvterm then prints the mark on its own instead,
// on the next row when a wrap was pending. Where the PTY's reads cut the output (and where the
// Renderer cuts it for its own corrections) would then change the screen. The Renderer has such
// marks joined here instead (LateMarks), in its screen model.
//
// Errors: none (std::bad_alloc).

#include "helpers/pty/screen-model.h"
#include "helpers/pty/screen-serializer.h"  // CursorPosition

#include <cstddef>
#include <cstdint>
#include <string_view>

struct VTerm;

namespace rea::helper {

constexpr size_t VTERM_CLUSTER = 6;
// libvterm 0.1.4's VTERM_MAX_CHARS_PER_CELL: within one write it keeps a base and at most five
// marks and drops the marks after them; the Renderer caps every glyph there.

class CombiningProbe {
  // Asks a private libvterm instance whether it treats a code point as combining (its table is
  // not exported), so the answer is libvterm's own on any machine.
 public:
  CombiningProbe();
  ~CombiningProbe();
  CombiningProbe(const CombiningProbe&) = delete;
  CombiningProbe& operator=(const CombiningProbe&) = delete;

  size_t leadingMarks(std::string_view bytes, uint32_t* marks, size_t capacity, size_t& count);
  // The combining marks `bytes` starts with (complete UTF-8 characters only): stores up to
  // `capacity` of them in `marks`, sets `count` to how many there are in all and returns the
  // number of bytes they take. Returns 0 if `bytes` does not start with one.

 private:
  VTerm* vt;
  uint32_t joined = 0;  // the second code point of the probe's glyph (its callback's user data)

  bool isCombining(uint32_t codePoint);
};

class LateMarks {
 public:
  std::string_view join(std::string_view bytes, ScreenModel& model, CursorPosition glyphAt,
                        CursorPosition cursor);
  // `bytes` continue the stream right after the glyph at `glyphAt` (libvterm's cursor is at
  // `cursor`). If they start with combining marks that libvterm would not join to it, they are
  // joined to its cell here; returns the bytes left for libvterm.

  const uint32_t* merge(const uint32_t* chars, CursorPosition pos, bool again,
                        uint32_t (&out)[VTERM_CLUSTER + 1]);
  // The code points to write for a glyph libvterm reports at `pos` (`again`: libvterm joining
  // marks to its previous glyph): at most VTERM_CLUSTER of them (libvterm appends marks from
  // later writes without a bound), with the marks join() gave that glyph put back where the
  // stream had them, after the ones libvterm knew. Returns `chars` or `out`.

  void forget() { at = {-1, -1}; }
  // Another glyph was written.

 private:
  CombiningProbe probe;
  CursorPosition at{-1, -1};  // the glyph join() last gave marks
  size_t known = 0;           // libvterm knows its first `known` code points
  uint32_t marks[VTERM_CLUSTER];
  size_t count = 0;
};

}  // namespace rea::helper
