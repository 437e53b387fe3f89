#pragma once
// Renderer::Impl, the one implementation of Renderer (screen-renderer.h), shared by the three
// files that define it: screen-renderer.c++ (construction, Renderer's public methods: resize,
// snapshot, capture), screen-renderer-write.c++ (the write path: bytes to libvterm, split UTF-8,
// width stand-ins, late combining marks; and the control sequences it corrects or completes) and
// screen-renderer-callbacks.c++ (libvterm's state-layer callbacks into the ScreenModel and the
// pending-wrap bookkeeping). The few functions libvterm's per-glyph callback and every write call
// (cursor(), settle(), self()) stay inline here. Private to helpers/pty: nothing outside includes
// it.

#include <vterm.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "helpers/pty/screen-combining.h"
#include "helpers/pty/screen-model.h"
#include "helpers/pty/screen-modes.h"
#include "helpers/pty/screen-plain-text.h"
#include "helpers/pty/screen-queries.h"
#include "helpers/pty/screen-renderer.h"
#include "helpers/pty/screen-scanner.h"

namespace rea::helper {

struct Renderer::Impl final : private ControlSink {
  VTerm* vt;
  VTermState* state;
  ScreenModel model;
  TerminalModes modes;
  ControlScanner scanner;
  bool emulating = true;
  std::string output;  // bytes libvterm wrote for the host, not yet split into replies
  std::vector<QueryReply> replies;
  CursorPosition normalCursor{0, 0};  // the normal buffer's cursor when the alternate was entered
  bool normalReflowed = false;        // since then, a resize reflowed the normal buffer
  CursorPosition lastCursor{0, 0};    // the cursor when emulation stopped

  // A glyph reached the right edge with autowrap on and the cursor has not moved since: libvterm
  // keeps the cursor on that glyph with a wrap pending (private to it); xterm.js and tmux report
  // the column past the edge then (B §6.11 follows xterm.js).
  bool wrapPending = false;
  CursorPosition pendingAt{-1, -1};
  CursorPosition lastGlyphAt{-1, -1};
  CursorPosition nextAt{-1, -1};  // just past the last glyph; `flowing` while the cursor is there
  bool flowing = false;
  // The fast path in onPutGlyph (most glyphs) only notes where its glyph went: settle() brings
  // the five fields above up to date from that. writeRaw() settles as soon as libvterm returns;
  // inside libvterm's callbacks, whatever reads or writes the fields calls settle() first. What
  // it depends on besides the glyph, autowrap and the width, cannot change before a settle().
  bool fastPending = false;
  VTermPos fastGlyphAt{-1, -1};
  // libvterm's callbacks, ours to change: movecursor is only set while a glyph may have set a
  // flag above that can matter (see onMoveCursor), so the cursor moves that cannot change them
  // cost no call. A plain glyph away from the edge leaves `flowing` set without it: that only
  // matters once the next glyph's place is the last column, which takes a resize (checked
  // there).
  VTermStateCallbacks callbacks = CALLBACKS;

  // A character whose width libvterm gets wrong goes to libvterm as a stand-in of the right width
  // (screen-widths.h); its putglyph (and a later one at the same place, when a combining mark
  // joins it) writes the real character. `fresh` while its own write is under way.
  uint32_t standIn = 0;
  uint32_t standInFor = 0;
  bool standInFresh = false;
  CursorPosition standInAt{-1, -1};
  std::string carry;  // the start of a UTF-8 character split across chunks

  // The last write to libvterm ended with the last byte of a glyph (text, not a sequence): a
  // combining mark starting the next write belongs to that glyph (joinLateMarks).
  bool afterText = false;
  uint64_t slowGlyphs = 0;  // glyphs putGlyphSlow() wrote (stand-ins and wide ones among them)
  LateMarks lateMarks;      // marks joined to a glyph in a later write than it

  // The chunk being fed, so a sequence found by the scanner can cut it (onSequence).
  std::string_view chunk;
  size_t fedUpTo = 0;
  bool dropping = false;  // inside a CSI cut for libvterm's sake (onOverlongSequence)

  // Runs of printable ASCII that the Renderer writes into the model itself (onGround).
  static constexpr size_t MIN_SHORTCUT = 4;  // glyphs; shorter runs cost less through libvterm
  bool textShortcut;                         // false: every glyph through libvterm (tests)
  PlainText plainText;
  uint64_t shortcutGlyphs = 0;

  // Construction (screen-renderer.c++).
  Impl(int columns, int rows, int scrollback, bool textShortcut);

  ~Impl() noexcept(false);

  CursorPosition cursor() const {
    VTermPos pos;
    vterm_state_get_cursorpos(state, &pos);
    return CursorPosition{pos.row, pos.col};
  }

  // The write path (screen-renderer-write.c++).
  void writeRaw(std::string_view bytes, bool endsInText = false);

  void write(std::string_view bytes, size_t textFrom = std::string_view::npos);

  void writeChecked(std::string_view bytes, size_t textFrom);

  void feed(std::string_view bytes);

  std::string_view joinLateMarks(std::string_view bytes);

  // implements ControlSink (screen-renderer-write.c++) -------------------------------------------

  void onSequence(const ControlSequence& sequence, size_t end) override;

  static bool changesWriteModes(const ControlSequence& sequence);

  void applyOverline(const ControlSequence& sequence, size_t end);

  void onOverlongSequence(size_t at) override;

  void onOverlongEnd(size_t end) override;

  void onGround(size_t from, size_t to) override;

  void onShiftInSequence(unsigned char control) override;

  void writeTextRun(size_t from, size_t to);

  void writeUpTo(size_t end);

  std::string clampedCursorMove(CursorPosition pos) const;

  // The pending-wrap bookkeeping (settle() here, the rest in screen-renderer-callbacks.c++).

  void settle() {
    if (!fastPending) return;
    fastPending = false;
    lateMarks.forget();
    lastGlyphAt = {fastGlyphAt.row, fastGlyphAt.col};
    nextAt = {fastGlyphAt.row, fastGlyphAt.col + 1};
    flowing = true;
    wrapPending = modes.autowrap() && fastGlyphAt.col + 1 >= model.columns();
    pendingAt = {fastGlyphAt.row, fastGlyphAt.col};
  }

  bool reportsPendingWrap();

  CursorPosition reportedCursor();

  // libvterm state-layer callbacks (screen-renderer-callbacks.c++) ----------------------------

  static Impl& self(void* user) { return *static_cast<Impl*>(user); }

  // Called once per glyph (see its definition).
  static int onPutGlyph(VTermGlyphInfo* info, VTermPos pos, void* user);

  [[gnu::noinline]] void putGlyphSlow(VTermGlyphInfo* info, VTermPos pos);

  static int onMoveCursor(VTermPos pos, VTermPos, int, void* user);

  static int onScrollRect(VTermRect rect, int downward, int rightward, void* user);

  static int onMoveRect(VTermRect dest, VTermRect src, void* user);

  static int onErase(VTermRect rect, int selective, void* user);

  static int onInitPen(void* user);

  static int onSetPenAttr(VTermAttr attr, VTermValue* value, void* user);

  static int onSetTermProp(VTermProp prop, VTermValue* value, void* user);

  static int onResize(int rows, int columns, VTermPos* delta, void* user);

  static void onOutput(const char* bytes, size_t length, void* user);

  // Unrecognised sequences are ignored silently (libvterm would otherwise log some of them).
  static int ignoreCsi(const char*, const long[], int, const char*, char, void*);
  static int ignoreString(const char*, size_t, void*);
  static int ignoreControl(unsigned char, void*);

  static const VTermStateCallbacks CALLBACKS;
  static const VTermParserCallbacks FALLBACKS;
};

}  // namespace rea::helper
