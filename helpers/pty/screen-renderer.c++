#include "helpers/pty/screen-renderer.h"

#include "helpers/pty/screen-combining.h"
#include "helpers/pty/screen-corrections.h"
#include "helpers/pty/screen-model.h"
#include "helpers/pty/screen-modes.h"
#include "helpers/pty/screen-pen.h"
#include "helpers/pty/screen-scanner.h"
#include "helpers/pty/screen-serializer.h"
#include "helpers/pty/screen-utf8.h"
#include "helpers/pty/screen-widths.h"

#include <vterm.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace rea::helper {

namespace {

void checkSize(int columns, int rows) {
  if (columns < 1 || rows < 1) {
    throw std::invalid_argument("terminal size must be at least 1x1, got " +
                                std::to_string(columns) + "x" + std::to_string(rows));
  }
}

ScreenRect toRect(VTermRect rect) {
  return ScreenRect{rect.start_row, rect.end_row, rect.start_col, rect.end_col};
}

}  // namespace

uint64_t RenderedScreen::cost() const {
  uint64_t total = serializedState.size();
  for (const std::string& line : lines)
    total += line.size();
  return total;
}

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

  Impl(int columns, int rows, int scrollback)
      : vt(vterm_new(rows, columns)),
        state(nullptr),
        model(columns, rows, scrollback),
        modes(columns, rows) {
    if (vt == nullptr) throw std::bad_alloc();
    vterm_set_utf8(vt, 1);
    vterm_output_set_callback(vt, &Impl::onOutput, this);
    state = vterm_obtain_state(vt);
    vterm_state_set_callbacks(state, &callbacks, this);
    vterm_state_set_unrecognised_fallbacks(state, &FALLBACKS, this);
    vterm_state_reset(state, 1);
  }

  ~Impl() noexcept(false) { vterm_free(vt); }

  CursorPosition cursor() const {
    VTermPos pos;
    vterm_state_get_cursorpos(state, &pos);
    return CursorPosition{pos.row, pos.col};
  }

  void writeRaw(std::string_view bytes, bool endsInText = false) {
    // `endsInText`: the bytes end with the last byte of a character that libvterm takes as text
    // (the stream's, not ours), so that a combining mark right after them would join it.
    if (!carry.empty()) {
      // Bytes of our own (a CAN, a cursor move) go after what the stream had before them.
      vterm_input_write(vt, carry.data(), carry.size());
      carry.clear();
      afterText = false;
    }
    if (afterText && !bytes.empty() && static_cast<unsigned char>(bytes[0]) >= 0xc2) {
      bytes = joinLateMarks(bytes);
    }
    if (!bytes.empty()) {
      vterm_input_write(vt, bytes.data(), bytes.size());
      afterText = endsInText;
    }
    // Outside libvterm's callbacks the pending-wrap bookkeeping is always current, so the code
    // between writes may read and write it directly; only the callbacks must settle() first.
    settle();
  }

  void write(std::string_view bytes, size_t textFrom = std::string_view::npos) {
    // Bytes for libvterm. Characters of three or four UTF-8 bytes (the only ones from U+1100 on,
    // where widths can be wrong or wide) are looked at; everything else goes through unchanged,
    // but for a character split at the end, kept back until the next chunk completes it.
    // `textFrom`: the bytes end the chunk, and libvterm's parser is in its ground state from this
    // offset in them on (text and C0 controls).
    if (!carry.empty()) {
      std::string joined = carry + std::string(bytes);
      if (textFrom != std::string_view::npos)
        textFrom = textFrom == 0 ? 0 : textFrom + carry.size();
      carry.clear();
      writeChecked(joined, textFrom);
    } else {
      writeChecked(bytes, textFrom);
    }
  }

  void writeChecked(std::string_view bytes, size_t textFrom) {
    auto endsInText = [&](size_t end) {
      // Only the chunk's end is known to be text or not; a cut elsewhere is followed by a
      // character that is not a combining mark, or by a sequence.
      if (end == 0 || end - 1 < textFrom || textFrom == std::string_view::npos) return false;
      unsigned char c = static_cast<unsigned char>(bytes[end - 1]);
      return c >= 0x20 && c != 0x7f;
    };
    size_t start = 0;
    size_t i = 0;
    size_t size = bytes.size();
    while (i < size) {
      if (i + 32 <= size) {
        // 32 bytes at a time while none has its top bit set (ASCII: most output).
        uint64_t words[4];
        memcpy(words, bytes.data() + i, 32);
        if (((words[0] | words[1] | words[2] | words[3]) & 0x8080808080808080ull) == 0) {
          i += 32;
          continue;
        }
      }
      if (i + 8 <= size) {
        // Eight bytes at a time likewise.
        uint64_t word;
        memcpy(&word, bytes.data() + i, 8);
        if ((word & 0x8080808080808080ull) == 0) {
          i += 8;
          continue;
        }
      }
      unsigned char lead = static_cast<unsigned char>(bytes[i]);
      size_t length = utf8SequenceLength(lead);
      if (length == 0) {
        i++;
        continue;
      }
      size_t have = 1;
      while (have < length && i + have < size &&
             isUtf8Continuation(static_cast<unsigned char>(bytes[i + have]))) {
        have++;
      }
      if (have < length) {
        writeRaw(bytes.substr(start, i - start), endsInText(i));
        if (i + have == size) {
          // Split across chunks: keep it back so the next chunk sees it whole.
          carry.assign(bytes.substr(i));
        } else {
          // Cut short (screen-utf8.h): from here on with a U+FFFD for each such sequence.
          size_t from = textFrom == std::string_view::npos ? textFrom
                        : textFrom <= i                    ? 0
                                                           : textFrom - i;
          std::string replaced = replaceTruncatedUtf8(bytes.substr(i), from);
          writeChecked(replaced, from);
        }
        return;
      }
      if (lead < 0xe1 || lead > 0xf4) {
        // Nothing below U+1100 is wide or measured wrongly (and nothing above U+10FFFF is a
        // character): leave it to libvterm.
        i += length;
        continue;
      }
      uint32_t cp = length == 3 ? lead & 0x0f : lead & 0x07;
      for (size_t k = 1; k < length; k++)
        cp = (cp << 6) | (static_cast<unsigned char>(bytes[i + k]) & 0x3f);
      int correction = widthCorrection(cp);
      bool checkWide =
          !modes.autowrap() && (correction == 2 || (correction == 0 && isWideCodePoint(cp)));
      if (correction == 0 && !checkWide) {
        i += length;
        continue;
      }
      writeRaw(bytes.substr(start, i - start));
      start = i + length;
      int atColumn = checkWide ? cursor().col : 0;
      if (checkWide && atColumn + 2 > model.columns()) {
        // Autowrap off and no room for a wide character: tmux and xterm drop it (libvterm would
        // start a new line anyway, moving everything after it a row down). A mark after it is
        // not the previous glyph's.
        afterText = false;
        i = start;
        continue;
      }
      // A glyph (not a string's content) if libvterm reports one: a mark right after it
      // joins it, wherever the chunk ends.
      uint64_t before = slowGlyphs;
      if (correction == 0) {
        writeRaw(bytes.substr(i, length));
      } else {
        standIn = correction == 2 ? 0x3000 : 0xfffd;  // libvterm: two columns, one column
        standInFor = cp;
        standInFresh = true;
        writeRaw(correction == 2 ? "\xe3\x80\x80" : "\xef\xbf\xbd");
        standInFresh = false;
      }
      afterText = slowGlyphs != before;
      if (checkWide && atColumn + 2 == model.columns()) {
        // Autowrap off and the wide glyph took the last two columns: xterm.js and tmux leave
        // the cursor on the last column; libvterm keeps it on the glyph's first.
        writeRaw("\x1b[C");
      }
      i = start;
    }
    writeRaw(bytes.substr(start), endsInText(size));
  }

  void feed(std::string_view bytes) {
    chunk = bytes;
    fedUpTo = 0;
    scanner.scan(bytes, *this);
    if (emulating) {
      if (!dropping) {
        size_t textFrom = std::string_view::npos;
        if (scanner.inGround()) textFrom = std::max(scanner.groundFrom(), fedUpTo) - fedUpTo;
        write(bytes.substr(fedUpTo), textFrom);
      }
      takeCompleteReplies(output, replies);
    }
  }

  std::string_view joinLateMarks(std::string_view bytes) {
    // `bytes` continue the stream right after a glyph: combining marks at their start would have
    // joined it had libvterm had them in the same write (screen-combining.h).
    settle();
    return lateMarks.join(bytes, model, lastGlyphAt, cursor());
  }

  // implements ControlSink -----------------------------------------------------------------------

  void onSequence(const ControlSequence& sequence, size_t end) override {
    if (!emulating) {
      QueryReply reply;
      int row = lastCursor.row + 1 - (modes.origin() ? modes.regionTop() : 0);
      int col = lastCursor.col + 1 - (modes.origin() ? modes.regionLeft() : 0);
      if (answerQuery(sequence, row, col, reply)) replies.push_back(std::move(reply));
      return;
    }
    if (mayNeedCorrection(sequence)) {
      writeUpTo(end - 1);  // libvterm has all but the final byte: its cursor is current
      if (std::optional<std::string> replacement =
              correctedSequence(sequence, cursor().row, model.alternate(), modes)) {
        // Cancel the sequence in libvterm (CAN) and give it the replacement instead; a cursor
        // move ends a pending wrap even where libvterm's cursor does not move.
        writeRaw("\x18");
        fedUpTo = end;
        writeRaw(*replacement);
        wrapPending = wrapPending && replacement->empty();
        if (!restoresSavedCursor(sequence)) return;  // else clamp what DECRC restored (below)
      }
    }
    if (changesWriteModes(sequence)) {
      // Autowrap and insert mode decide how write() and onPutGlyph treat the text before this
      // sequence: let libvterm have that text (and the sequence) first.
      writeUpTo(end);
    }
    settle();  // with the autowrap mode its glyphs were written in
    modes.apply(sequence);
    applyOverline(sequence, end);
    if (sequence.csi && sequence.leader == '?' && sequence.intermediateCount == 0 &&
        (sequence.final == 'h' || sequence.final == 'l')) {
      for (int i = 0; i < sequence.paramCount; i++) {
        if (sequence.params[i] == 47) {
          // ?47 (the alternate screen without clearing it), which libvterm 0.1.4 ignores: the
          // same as ?1047 here.
          writeUpTo(end);
          writeRaw(sequence.final == 'h' ? "\x1b[?1047h" : "\x1b[?1047l");
        }
      }
    }
    if (sequence.csi && sequence.plain() && sequence.final == 'J' && sequence.param(0, 0) == 3) {
      // ED 3: libvterm 0.1.4 ignores it; xterm clears the scrollback. Apply it at its place in
      // the stream: everything before it must reach libvterm first.
      writeUpTo(end);
      model.clearScrollback();
    } else if (restoresSavedCursor(sequence)) {
      // libvterm 0.1.4 restores a cursor saved before a shrinking resize as it was, off the
      // screen, and then reads and writes its per-row arrays at that row. Put it back on the
      // screen (clamped, as xterm does) before libvterm sees another byte.
      writeUpTo(end);
      CursorPosition pos = cursor();
      if (normalReflowed && !model.alternate() && sequence.leader == '?' &&
          sequence.param(sequence.paramCount - 1, 0) == 1049) {
        // ?1049l after the normal buffer was reflowed under the alternate screen: the cursor
        // libvterm saved moved with its text.
        normalReflowed = false;
        writeRaw(clampedCursorMove(normalCursor));
      } else if (pos.row >= model.rows() || pos.col >= model.columns()) {
        writeRaw(clampedCursorMove(pos));
      }
    }
  }

  static bool changesWriteModes(const ControlSequence& sequence) {
    if (!sequence.csi) return sequence.intermediateCount == 0 && sequence.final == 'c';  // RIS
    if (sequence.intermediateCount == 0 && (sequence.final == 'h' || sequence.final == 'l')) {
      return sequence.leader == 0 || sequence.leader == '?';
    }
    return sequence.final == 'p' && sequence.hasIntermediate('!');  // DECSTR
  }

  void applyOverline(const ControlSequence& sequence, size_t end) {
    // SGR 53/55 (overline on/off), which libvterm 0.1.4 does not know; the pen is ours.
    if (!sequence.csi || !sequence.plain() || sequence.final != 'm') return;
    bool on = (model.pen().attrs & ATTR_OVERLINE) != 0;
    int change = -1;  // -1 none, 0 off, 1 on
    for (int i = 0; i < sequence.paramCount; i++) {
      int value = sequence.params[i];
      if (value == 38 || value == 48 || value == 58) {
        int mode = i + 1 < sequence.paramCount ? sequence.params[i + 1] : -1;
        i += mode == 5 ? 2 : mode == 2 ? 4 : 0;
      } else if (value == 53) {
        change = 1;
      } else if (value == 55 || ((value == 0 || value == -1) && on)) {
        change = 0;
      }
    }
    if (sequence.paramCount == 0 && on) change = 0;
    if (change < 0) return;
    writeUpTo(end);  // libvterm applies the rest of the SGR (and SGR 0 resets our pen) first
    Pen& pen = model.pen();
    pen.attrs = change == 1 ? pen.attrs | ATTR_OVERLINE : pen.attrs & ~ATTR_OVERLINE;
  }

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

  bool reportsPendingWrap() {
    settle();
    CursorPosition pos = cursor();
    return wrapPending && pos.row == pendingAt.row && pos.col == pendingAt.col;
  }

  CursorPosition reportedCursor() {
    CursorPosition pos = cursor();
    if (reportsPendingWrap()) pos.col = model.columns();
    return pos;
  }

  void onOverlongSequence(size_t at) override {
    // libvterm 0.1.4 would write this separator's argument past its array (a heap overflow
    // any target can trigger): cancel the sequence there, as CAN does, and keep the rest of it
    // from libvterm. xterm would act on the first 16 parameters; such a sequence is no real
    // program's output.
    if (!emulating) return;
    writeUpTo(at);
    writeRaw("\x18");
    dropping = true;
  }

  void onOverlongEnd(size_t end) override {
    fedUpTo = end;
    dropping = false;
  }

  void writeUpTo(size_t end) {
    write(chunk.substr(fedUpTo, end - fedUpTo));
    fedUpTo = end;
  }

  std::string clampedCursorMove(CursorPosition pos) const {
    // CUP counts from the region's top (and left margin) in origin mode.
    int row = std::min(pos.row, model.rows() - 1) - (modes.origin() ? modes.regionTop() : 0);
    int col = std::min(pos.col, model.columns() - 1) - (modes.origin() ? modes.regionLeft() : 0);
    return "\x1b[" + std::to_string(std::max(row, 0) + 1) + ";" +
           std::to_string(std::max(col, 0) + 1) + "H";
  }

  // libvterm state-layer callbacks ------------------------------------------------------------

  static Impl& self(void* user) { return *static_cast<Impl*>(user); }

  // Called once per glyph: flatten keeps the model's cell write (and its vector growth) inline
  // in the fast path below instead of behind calls the compiler would otherwise outline.
  [[gnu::flatten]] static int onPutGlyph(VTermGlyphInfo* info, VTermPos pos, void* user) {
    Impl& impl = self(user);
    if (impl.standIn == 0 && info->width == 1 && info->chars[1] == 0 &&
        (pos.col > 0 || (impl.settle(), !impl.wrapPending))) {
      // Most glyphs (plain text): no stand-in to map, no combining mark joining the previous
      // glyph, not wide, not carried on from a pending wrap (a narrow glyph in column 0 is marked
      // continued only then). putGlyphSlow() would do the same with every one of its checks
      // false; this keeps them (and its stack frame) off the path.
      impl.model.putGlyph(info->chars, 1, pos.row, pos.col, info->protected_cell);
      impl.fastGlyphAt = pos;  // settle() does the bookkeeping for it
      impl.fastPending = true;
      // Away from the edge the glyph leaves no wrap pending, and `flowing` matters only where
      // the next glyph would go in the last column: libvterm need not call back when the cursor
      // moves on (at the end of every text run, then). resize() checks `flowing` before the
      // width changes.
      if (pos.col + 2 >= impl.model.columns()) impl.callbacks.movecursor = &Impl::onMoveCursor;
      return 1;
    }
    impl.putGlyphSlow(info, pos);
    return 1;
  }

  [[gnu::noinline]] void putGlyphSlow(VTermGlyphInfo* info, VTermPos pos) {
    Impl& impl = *this;
    settle();
    slowGlyphs++;
    const uint32_t* chars = info->chars;
    uint32_t mapped[VTERM_CLUSTER + 1];
    // A combining mark joined the previous glyph (in a later write than it): libvterm writes
    // that glyph again where it was, with its cursor left past it. (A new glyph goes where the
    // cursor is, even when that is where the previous glyph was, as after a scroll.)
    bool again = chars[1] != 0 && [&] {
      CursorPosition at = cursor();
      return at.row != pos.row || at.col != pos.col;
    }();
    chars = lateMarks.merge(chars, {pos.row, pos.col}, again, mapped);
    if (impl.standIn != 0) {
      bool samePlace = pos.row == impl.standInAt.row && pos.col == impl.standInAt.col;
      if (chars[0] == impl.standIn && (impl.standInFresh || samePlace)) {
        size_t n = 0;
        for (; n < VTERM_CLUSTER && chars[n] != 0; n++)
          mapped[n] = chars[n];
        mapped[n] = 0;
        mapped[0] = impl.standInFor;
        chars = mapped;
        impl.standInAt = {pos.row, pos.col};
      } else if (!samePlace) {
        impl.standInAt = {-1, -1};
        // Nothing left to map until the next stand-in is written (which sets standIn again):
        // clearing it puts the following glyphs back on onPutGlyph's fast path.
        if (!impl.standInFresh) impl.standIn = 0;
      }
    }
    if (pos.col == 0 && !again && pos.row > 0) {
      // Autowrap carried this glyph on from the row above (after a wrap pending at the edge, or
      // a wide glyph that did not fit in the last column): reflow joins the two rows.
      bool fromPending =
          impl.wrapPending && (pos.row == impl.pendingAt.row + 1 || pos.row == impl.pendingAt.row);
      bool didNotFit = impl.flowing && info->width == 2 &&
                       impl.nextAt.col == impl.model.columns() - 1 &&
                       (pos.row == impl.nextAt.row + 1 || pos.row == impl.nextAt.row);
      if (fromPending || didNotFit) impl.model.markContinued(pos.row - 1);
      if (didNotFit && impl.modes.insertMode()) {
        // In insert mode the cell it did not fit in still holds what the glyphs inserted before
        // pushed there: xterm.js and tmux empty it. (Outside insert mode xterm.js empties it
        // too, tmux and libvterm keep it; the Renderer keeps it, as the oracle it is checked
        // against in CI does.)
        impl.model.erase(ScreenRect{pos.row - 1, pos.row, impl.nextAt.col, impl.model.columns()},
                         false);
      }
    }
    if (info->width == 2 && impl.modes.insertMode() && !again) {
      // libvterm's insert mode makes room for one column whatever the glyph's width.
      impl.model.scrollRect(ScreenRect{pos.row, pos.row + 1, pos.col, impl.model.columns()}, 0, -1);
    }
    impl.model.putGlyph(chars, info->width, pos.row, pos.col, info->protected_cell);
    impl.lastGlyphAt = {pos.row, pos.col};
    impl.nextAt = {pos.row, pos.col + info->width};
    impl.flowing = true;
    impl.wrapPending = impl.modes.autowrap() && pos.col + info->width >= impl.model.columns();
    impl.callbacks.movecursor = &Impl::onMoveCursor;
    impl.pendingAt = {pos.row, pos.col};
  }

  static int onMoveCursor(VTermPos pos, VTermPos, int, void* user) {
    Impl& impl = self(user);
    impl.settle();
    if (pos.row != impl.pendingAt.row || pos.col != impl.pendingAt.col) impl.wrapPending = false;
    if (pos.row != impl.nextAt.row || pos.col != impl.nextAt.col) impl.flowing = false;
    // Only a glyph sets them again (and sets this callback again): until then, moves are no-ops.
    if (!impl.wrapPending && !impl.flowing) impl.callbacks.movecursor = nullptr;
    return 1;
  }

  static int onScrollRect(VTermRect rect, int downward, int rightward, void* user) {
    self(user).model.scrollRect(toRect(rect), downward, rightward);
    return 1;
  }

  static int onMoveRect(VTermRect dest, VTermRect src, void* user) {
    self(user).model.moveRect(toRect(dest), toRect(src));
    return 1;
  }

  static int onErase(VTermRect rect, int selective, void* user) {
    self(user).model.erase(toRect(rect), selective != 0);
    return 1;
  }

  static int onInitPen(void* user) {
    self(user).model.resetPen();
    return 1;
  }

  static int onSetPenAttr(VTermAttr attr, VTermValue* value, void* user) {
    return applyPenAttr(self(user).model.pen(), attr, *value) ? 1 : 0;
  }

  static int onSetTermProp(VTermProp prop, VTermValue* value, void* user) {
    Impl& impl = self(user);
    if (prop == VTERM_PROP_ALTSCREEN) {
      bool on = value->boolean != 0;
      // ?1049 saves the cursor right after this callback, where it still is now.
      if (on && !impl.model.alternate()) {
        impl.normalCursor = impl.cursor();
        impl.normalReflowed = false;
      }
      impl.model.setAlternate(on);
    }
    return 1;
  }

  static int onResize(int rows, int columns, VTermPos* delta, void* user) {
    Impl& impl = self(user);
    // libvterm moves its cursor by `delta` after this returns; it has not moved it yet. Before
    // that, it cancels a pending wrap where the new width leaves room, moving the cursor one
    // column right.
    CursorPosition pos = impl.cursor();
    if (columns == impl.model.columns()) {
      delta->row += impl.model.resize(columns, rows, pos.row);
      return 1;
    }
    bool pending = impl.reportsPendingWrap();
    int col = pending ? impl.model.columns() : pos.col;  // where the next glyph would go
    int normalRow = impl.normalCursor.row;
    int normalCol = impl.normalCursor.col;
    delta->row += impl.model.resize(columns, rows, pos.row, &col, &normalRow, &normalCol);
    if (impl.model.alternate()) {
      impl.normalCursor = {normalRow, normalCol};
      impl.normalReflowed = true;
    }
    int adjusted = pos.col + (pending && pos.col < columns - 1 ? 1 : 0);
    delta->col += col - adjusted;
    return 1;
  }

  static void onOutput(const char* bytes, size_t length, void* user) {
    self(user).output.append(bytes, length);
  }

  // Unrecognised sequences are ignored silently (libvterm would otherwise log some of them).
  static int ignoreCsi(const char*, const long[], int, const char*, char, void*) { return 1; }
  static int ignoreString(const char*, size_t, void*) { return 1; }
  static int ignoreControl(unsigned char, void*) { return 1; }

  static const VTermStateCallbacks CALLBACKS;
  static const VTermParserCallbacks FALLBACKS;
};

const VTermStateCallbacks Renderer::Impl::CALLBACKS = [] {
  VTermStateCallbacks callbacks{};
  callbacks.putglyph = &Impl::onPutGlyph;
  callbacks.movecursor = &Impl::onMoveCursor;
  callbacks.scrollrect = &Impl::onScrollRect;
  callbacks.moverect = &Impl::onMoveRect;
  callbacks.erase = &Impl::onErase;
  callbacks.initpen = &Impl::onInitPen;
  callbacks.setpenattr = &Impl::onSetPenAttr;
  callbacks.settermprop = &Impl::onSetTermProp;
  callbacks.resize = &Impl::onResize;
  return callbacks;  // bell, setlineinfo: nothing to do
}();

const VTermParserCallbacks Renderer::Impl::FALLBACKS = [] {
  VTermParserCallbacks fallbacks{};
  fallbacks.control = &Impl::ignoreControl;
  fallbacks.csi = &Impl::ignoreCsi;
  fallbacks.osc = &Impl::ignoreString;
  fallbacks.dcs = &Impl::ignoreString;
  return fallbacks;
}();

Renderer::Renderer(int columns, int rows, int scrollback) {
  checkSize(columns, rows);
  if (scrollback < 0) {
    throw std::invalid_argument("scrollback must not be negative, got " +
                                std::to_string(scrollback));
  }
  impl = std::make_unique<Impl>(columns, rows, scrollback);
}

Renderer::~Renderer() noexcept(false) {}

void Renderer::feed(std::string_view bytes) {
  impl->feed(bytes);
}

void Renderer::resize(int columns, int rows) {
  checkSize(columns, rows);
  if (impl->emulating) {
    // libvterm 0.1.4 clamps the bottom of the scroll region on a resize but not its top: a
    // region starting on a row that no longer exists makes the next scroll memmove out of
    // bounds. Reset such a region (and such margins) as xterm would on a resize, putting the
    // cursor back where the resize left it.
    bool badRegion = impl->modes.regionTop() >= rows || impl->modes.marginLeft() >= columns;
    // xterm and tmux also reset the scroll region when the number of rows changes (libvterm
    // keeps it, clamped).
    bool staleRegion = rows != impl->model.rows() && impl->modes.hasScrollRegion();
    bool newWidth = columns != impl->model.columns();
    bool wasPending = impl->reportsPendingWrap();
    if (newWidth && impl->flowing && impl->callbacks.movecursor == nullptr) {
      // A glyph away from the edge did not ask libvterm to report cursor moves (onPutGlyph):
      // with the new width, where the next glyph goes may be the last column. The cursor is
      // still just past that glyph if it is there now (short of having left and come back).
      CursorPosition pos = impl->cursor();
      impl->flowing = pos.row == impl->nextAt.row && pos.col == impl->nextAt.col;
      if (impl->flowing) impl->callbacks.movecursor = &Impl::onMoveCursor;
    }
    impl->afterText = false;  // a mark after a resize does not join a glyph before it
    // A character split at the end of the last chunk is finished by the next one: it does not
    // go to libvterm before the bytes of our own below.
    std::string held;
    held.swap(impl->carry);
    vterm_set_size(impl->vt, rows, columns);  // reflows (Impl::onResize)
    impl->modes.resize(columns, rows);
    if (newWidth) {
      // The reflow put the cursor where the next glyph goes; libvterm may still hold the wrap
      // that was pending (it keeps it where the new width leaves no room): a CUP clears it.
      if (wasPending) impl->writeRaw(impl->clampedCursorMove(impl->cursor()));
      impl->settle();
      impl->wrapPending = false;
    }
    if (badRegion || staleRegion) {
      CursorPosition cursor = impl->cursor();
      impl->feed(std::string("\x1b[r") + (badRegion ? "\x1b[s" : "") + "\x1b[" +
                 std::to_string(cursor.row + 1) + ";" + std::to_string(cursor.col + 1) + "H");
    }
    impl->carry = std::move(held);
  } else {
    impl->lastCursor.row = std::min(impl->lastCursor.row, rows - 1);
    impl->lastCursor.col = std::min(impl->lastCursor.col, columns - 1);
    impl->modes.resize(columns, rows);
  }
}

namespace {

// The frame's size, cursor, buffer and lines; serializedState is left empty.
RenderedScreen frameWithoutState(const ScreenModel& model, CursorPosition cursor,
                                 int reportedColumn) {
  RenderedScreen frame;
  frame.columns = model.columns();
  frame.rows = model.rows();
  frame.cursorX = reportedColumn;
  frame.cursorY = cursor.row;
  frame.alternate = model.alternate();
  frame.lines = renderLines(model);
  return frame;
}

}  // namespace

RenderedScreen Renderer::snapshot() {
  ScreenModel& model = impl->model;
  CursorPosition cursor = impl->emulating ? impl->cursor() : impl->lastCursor;
  int column = impl->emulating ? impl->reportedCursor().col : cursor.col;
  RenderedScreen frame = frameWithoutState(model, cursor, column);
  serializeScreen(model, impl->modes, cursor, impl->emulating && impl->reportsPendingWrap(),
                  impl->normalCursor, std::numeric_limits<size_t>::max(), frame.serializedState);
  return frame;
}

std::optional<RenderedScreen> Renderer::capture(RenderBudget& budget) {
  ScreenModel& model = impl->model;
  if (impl->emulating && budget.exhausted(model.columns(), model.rows())) {
    impl->lastCursor = impl->cursor();
    impl->emulating = false;
  }
  if (!impl->emulating) {
    budget.drop();
    return std::nullopt;
  }
  CursorPosition cursor = impl->cursor();
  RenderedScreen frame = frameWithoutState(model, cursor, impl->reportedCursor().col);
  uint64_t linesCost = frame.cost();
  uint64_t remaining = budget.frameBytesLimit();  // A15: a frame may replace the kept ones
  if (linesCost > remaining ||
      !serializeScreen(model, impl->modes, cursor, impl->reportsPendingWrap(), impl->normalCursor,
                       remaining - linesCost, frame.serializedState) ||
      !budget.admit(frame.cost())) {
    budget.drop();
    return std::nullopt;
  }
  return frame;
}

std::vector<QueryReply> Renderer::takeReplies() {
  std::vector<QueryReply> taken;
  taken.swap(impl->replies);
  return taken;
}

bool Renderer::emulating() const {
  return impl->emulating;
}

}  // namespace rea::helper
