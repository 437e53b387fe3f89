// Renderer::Impl's side of libvterm (screen-renderer-impl.h): the state layer's callbacks, which
// write glyphs, scrolls, erasures, the pen, the alternate screen and resizes into the ScreenModel
// (onPutGlyph once per glyph, with its fast path), and the pending-wrap bookkeeping that follows
// the glyphs to report the cursor as xterm.js does.

#include "helpers/pty/screen-pen.h"
#include "helpers/pty/screen-renderer-impl.h"

namespace rea::helper {

namespace {

ScreenRect toRect(VTermRect rect) {
  return ScreenRect{rect.start_row, rect.end_row, rect.start_col, rect.end_col};
}

}  // namespace

// The pending-wrap bookkeeping ----------------------------------------------------------------

bool Renderer::Impl::reportsPendingWrap() {
  settle();
  CursorPosition pos = cursor();
  return wrapPending && pos.row == pendingAt.row && pos.col == pendingAt.col;
}

CursorPosition Renderer::Impl::reportedCursor() {
  CursorPosition pos = cursor();
  if (reportsPendingWrap()) pos.col = model.columns();
  return pos;
}

// libvterm state-layer callbacks ----------------------------------------------------------------

// Called once per glyph. Not [[gnu::flatten]]: that also inlined the model's cluster path
// (putCluster) and made every call save six registers and spill to a 248-byte frame; without it
// the fast path saves three (callgrind: 4 % fewer instructions here, renderer-bench feed only
// 2-5 % faster).
int Renderer::Impl::onPutGlyph(VTermGlyphInfo* info, VTermPos pos, void* user) {
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

[[gnu::noinline]] void Renderer::Impl::putGlyphSlow(VTermGlyphInfo* info, VTermPos pos) {
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

int Renderer::Impl::onMoveCursor(VTermPos pos, VTermPos, int, void* user) {
  Impl& impl = self(user);
  impl.settle();
  if (pos.row != impl.pendingAt.row || pos.col != impl.pendingAt.col) impl.wrapPending = false;
  if (pos.row != impl.nextAt.row || pos.col != impl.nextAt.col) impl.flowing = false;
  // Only a glyph sets them again (and sets this callback again): until then, moves are no-ops.
  if (!impl.wrapPending && !impl.flowing) impl.callbacks.movecursor = nullptr;
  return 1;
}

int Renderer::Impl::onScrollRect(VTermRect rect, int downward, int rightward, void* user) {
  self(user).model.scrollRect(toRect(rect), downward, rightward);
  return 1;
}

int Renderer::Impl::onMoveRect(VTermRect dest, VTermRect src, void* user) {
  self(user).model.moveRect(toRect(dest), toRect(src));
  return 1;
}

int Renderer::Impl::onErase(VTermRect rect, int selective, void* user) {
  self(user).model.erase(toRect(rect), selective != 0);
  return 1;
}

int Renderer::Impl::onInitPen(void* user) {
  self(user).model.resetPen();
  return 1;
}

int Renderer::Impl::onSetPenAttr(VTermAttr attr, VTermValue* value, void* user) {
  return applyPenAttr(self(user).model.pen(), attr, *value) ? 1 : 0;
}

int Renderer::Impl::onSetTermProp(VTermProp prop, VTermValue* value, void* user) {
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

int Renderer::Impl::onResize(int rows, int columns, VTermPos* delta, void* user) {
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

void Renderer::Impl::onOutput(const char* bytes, size_t length, void* user) {
  self(user).output.append(bytes, length);
}

int Renderer::Impl::ignoreCsi(const char*, const long[], int, const char*, char, void*) {
  return 1;
}

int Renderer::Impl::ignoreString(const char*, size_t, void*) {
  return 1;
}

int Renderer::Impl::ignoreControl(unsigned char, void*) {
  return 1;
}

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

}  // namespace rea::helper
