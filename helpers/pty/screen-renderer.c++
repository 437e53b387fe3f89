// Renderer (screen-renderer.h): its construction and public methods, resize, snapshot and
// capture, over Renderer::Impl (screen-renderer-impl.h; the write path and libvterm's callbacks
// are in screen-renderer-write.c++ and screen-renderer-callbacks.c++).

#include "helpers/pty/screen-renderer.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "helpers/pty/screen-renderer-impl.h"
#include "helpers/pty/screen-serializer.h"

namespace rea::helper {

namespace {

void checkSize(int columns, int rows) {
  if (columns < 1 || rows < 1) {
    throw std::invalid_argument("terminal size must be at least 1x1, got " +
                                std::to_string(columns) + "x" + std::to_string(rows));
  }
}

}  // namespace

uint64_t RenderedScreen::cost() const {
  uint64_t total = serializedState.size();
  for (const std::string& line : lines)
    total += line.size();
  return total;
}

Renderer::Impl::Impl(int columns, int rows, int scrollback, bool textShortcut)
    : vt(vterm_new(rows, columns)),
      state(nullptr),
      model(columns, rows, scrollback),
      modes(columns, rows),
      textShortcut(textShortcut) {
  if (vt == nullptr) throw std::bad_alloc();
  vterm_set_utf8(vt, 1);
  vterm_output_set_callback(vt, &Impl::onOutput, this);
  state = vterm_obtain_state(vt);
  vterm_state_set_callbacks(state, &callbacks, this);
  vterm_state_set_unrecognised_fallbacks(state, &FALLBACKS, this);
  vterm_state_reset(state, 1);
}

Renderer::Impl::~Impl() noexcept(false) {
  vterm_free(vt);
}

Renderer::Renderer(int columns, int rows, int scrollback, bool textShortcut) {
  checkSize(columns, rows);
  if (scrollback < 0) {
    throw std::invalid_argument("scrollback must not be negative, got " +
                                std::to_string(scrollback));
  }
  impl = std::make_unique<Impl>(columns, rows, scrollback, textShortcut);
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

uint64_t Renderer::shortcutGlyphs() const {
  return impl->shortcutGlyphs;
}

}  // namespace rea::helper
