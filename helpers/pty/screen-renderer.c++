#include "helpers/pty/screen-renderer.h"

#include "helpers/pty/screen-model.h"
#include "helpers/pty/screen-modes.h"
#include "helpers/pty/screen-scanner.h"
#include "helpers/pty/screen-serializer.h"

#include <vterm.h>

#include <algorithm>
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

Color toColor(const VTermColor& color) {
  if (VTERM_COLOR_IS_DEFAULT_FG(&color) || VTERM_COLOR_IS_DEFAULT_BG(&color)) return DEFAULT_COLOR;
  if (VTERM_COLOR_IS_INDEXED(&color)) return INDEXED_COLOR | color.indexed.idx;
  return RGB_COLOR | (uint32_t(color.rgb.red) << 16) | (uint32_t(color.rgb.green) << 8) |
         color.rgb.blue;
}

void setFlag(uint32_t& attrs, uint32_t flag, bool on) {
  attrs = on ? attrs | flag : attrs & ~flag;
}

void setField(uint32_t& attrs, uint32_t mask, uint32_t shift, int value) {
  attrs = (attrs & ~mask) | ((static_cast<uint32_t>(value) << shift) & mask);
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
  CursorPosition lastCursor{0, 0};    // the cursor when emulation stopped

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
    vterm_state_set_callbacks(state, &CALLBACKS, this);
    vterm_state_set_unrecognised_fallbacks(state, &FALLBACKS, this);
    vterm_state_reset(state, 1);
  }

  ~Impl() noexcept(false) { vterm_free(vt); }

  CursorPosition cursor() const {
    VTermPos pos;
    vterm_state_get_cursorpos(state, &pos);
    return CursorPosition{pos.row, pos.col};
  }

  void write(std::string_view bytes) {
    if (!bytes.empty()) vterm_input_write(vt, bytes.data(), bytes.size());
  }

  void feed(std::string_view bytes) {
    chunk = bytes;
    fedUpTo = 0;
    scanner.scan(bytes, *this);
    if (emulating) {
      if (!dropping) write(bytes.substr(fedUpTo));
      takeCompleteReplies(output, replies);
    }
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
    modes.apply(sequence);
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
      if (pos.row >= model.rows() || pos.col >= model.columns()) {
        write(clampedCursorMove(pos));
      }
    }
  }

  void onOverlongSequence(size_t at) override {
    // libvterm 0.1.4 would write this separator's argument past its array (a heap overflow
    // any target can trigger): cancel the sequence there, as CAN does, and keep the rest of it
    // from libvterm. xterm would act on the first 16 parameters; such a sequence is no real
    // program's output.
    if (!emulating) return;
    writeUpTo(at);
    write("\x18");
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

  static int onPutGlyph(VTermGlyphInfo* info, VTermPos pos, void* user) {
    self(user).model.putGlyph(info->chars, info->width, pos.row, pos.col, info->protected_cell);
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
    Pen& pen = self(user).model.pen();
    switch (attr) {
      case VTERM_ATTR_BOLD:
        setFlag(pen.attrs, ATTR_BOLD, value->boolean);
        break;
      case VTERM_ATTR_UNDERLINE:
        setField(pen.attrs, ATTR_UNDERLINE_MASK, ATTR_UNDERLINE_SHIFT, value->number);
        break;
      case VTERM_ATTR_ITALIC:
        setFlag(pen.attrs, ATTR_ITALIC, value->boolean);
        break;
      case VTERM_ATTR_BLINK:
        setFlag(pen.attrs, ATTR_BLINK, value->boolean);
        break;
      case VTERM_ATTR_REVERSE:
        setFlag(pen.attrs, ATTR_REVERSE, value->boolean);
        break;
      case VTERM_ATTR_STRIKE:
        setFlag(pen.attrs, ATTR_STRIKE, value->boolean);
        break;
      case VTERM_ATTR_FONT:
        setField(pen.attrs, ATTR_FONT_MASK, ATTR_FONT_SHIFT, value->number);
        break;
      case VTERM_ATTR_FOREGROUND:
        pen.fg = toColor(value->color);
        break;
      case VTERM_ATTR_BACKGROUND:
        pen.bg = toColor(value->color);
        break;
      default:
        return 0;
    }
    return 1;
  }

  static int onSetTermProp(VTermProp prop, VTermValue* value, void* user) {
    Impl& impl = self(user);
    if (prop == VTERM_PROP_ALTSCREEN) {
      bool on = value->boolean != 0;
      // ?1049 saves the cursor right after this callback, where it still is now.
      if (on && !impl.model.alternate()) impl.normalCursor = impl.cursor();
      impl.model.setAlternate(on);
    }
    return 1;
  }

  static int onResize(int rows, int columns, VTermPos* delta, void* user) {
    Impl& impl = self(user);
    // libvterm moves its cursor by `delta` after this returns; it has not moved it yet.
    delta->row += impl.model.resize(columns, rows, impl.cursor().row);
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
  callbacks.scrollrect = &Impl::onScrollRect;
  callbacks.moverect = &Impl::onMoveRect;
  callbacks.erase = &Impl::onErase;
  callbacks.initpen = &Impl::onInitPen;
  callbacks.setpenattr = &Impl::onSetPenAttr;
  callbacks.settermprop = &Impl::onSetTermProp;
  callbacks.resize = &Impl::onResize;
  return callbacks;  // movecursor, bell, setlineinfo: nothing to do
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
    vterm_set_size(impl->vt, rows, columns);
    if (badRegion) {
      CursorPosition cursor = impl->cursor();
      impl->feed("\x1b[r\x1b[s\x1b[" + std::to_string(cursor.row + 1) + ";" +
                 std::to_string(cursor.col + 1) + "H");
    }
  } else {
    impl->lastCursor.row = std::min(impl->lastCursor.row, rows - 1);
    impl->lastCursor.col = std::min(impl->lastCursor.col, columns - 1);
  }
  impl->modes.resize(columns, rows);
}

namespace {

// The frame's size, cursor, buffer and lines; serializedState is left empty.
RenderedScreen frameWithoutState(const ScreenModel& model, CursorPosition cursor) {
  RenderedScreen frame;
  frame.columns = model.columns();
  frame.rows = model.rows();
  frame.cursorX = cursor.col;
  frame.cursorY = cursor.row;
  frame.alternate = model.alternate();
  frame.lines = renderLines(model);
  return frame;
}

}  // namespace

RenderedScreen Renderer::snapshot() {
  ScreenModel& model = impl->model;
  CursorPosition cursor = impl->emulating ? impl->cursor() : impl->lastCursor;
  RenderedScreen frame = frameWithoutState(model, cursor);
  serializeScreen(model, impl->modes, cursor, impl->normalCursor,
                  std::numeric_limits<size_t>::max(), frame.serializedState);
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
  RenderedScreen frame = frameWithoutState(model, cursor);
  uint64_t linesCost = frame.cost();
  uint64_t remaining = budget.frameBytesLimit();  // A15: a frame may replace the kept ones
  if (linesCost > remaining ||
      !serializeScreen(model, impl->modes, cursor, impl->normalCursor, remaining - linesCost,
                       frame.serializedState) ||
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
