#pragma once
// Renderer: the pty helper's terminal emulator (B §6.11, A11). Raw PTY output goes in; rendered
// frames (size, cursor, active buffer, `lines`, `serialized_state`) and the answers to terminal
// queries come out. It drives libvterm 0.1.4's *state* layer (parsing, cursor, modes, the
// answers to DA/DSR) into our own ScreenModel, whose rows live in a ring so that scrolling costs
// O(1); libvterm's screen layer, which copies the whole screen on every scroll, is never used.
//
// Use (one thread; the owner serialises work in queue order, B §6.11):
//   Renderer renderer(columns, rows, scrollback);
//   RenderBudget budget(limits.frames, limits.output_bytes);
//   for each accepted raw chunk: renderer.feed(chunk);
//                                for each reply in renderer.takeReplies(): write reply.reply to
//                                    the PTY master, record an interaction event;
//                                if (auto frame = renderer.capture(budget)) record *frame;
//   for each dispatched resize:  renderer.resize(c, r); then capture() likewise.
// Keep calling feed() after the budget runs out: the renderer then stops emulating (no libvterm,
// no frames; a cheap scan of the bytes only) but still answers DA, DA2, DSR 5 and DSR 6, the
// queries programs block on, so they do not hang. The cursor position reported then is the last
// one emulated.
//
// feed() accepts any bytes; UTF-8 characters and escape sequences may be split across calls.
// Output is expected to be UTF-8 (libvterm's UTF-8 mode).
//
// Errors: the constructor and resize() throw std::invalid_argument for a size below 1 or a
// negative scrollback (caller bugs); nothing else throws except std::bad_alloc.

#include "helpers/pty/screen-budget.h"
#include "helpers/pty/screen-queries.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rea::helper {

struct RenderedScreen {
  int columns = 0;
  int rows = 0;
  int cursorX = 0;         // 0-based column of the cursor
  int cursorY = 0;         // 0-based row, relative to the top visible row of the active buffer
  bool alternate = false;  // active_buffer: false = "normal", true = "alternate"
  std::vector<std::string> lines;  // see screen-serializer.h
  std::string serializedState;     // see screen-serializer.h

  uint64_t cost() const;
  // B §6.11 frame cost: UTF-8 bytes of serializedState plus those of every line.
};

class Renderer {
 public:
  Renderer(int columns, int rows, int scrollback, bool textShortcut = true);
  // columns and rows >= 1; scrollback >= 0 rows (terminal.scrollback). `textShortcut`: runs of
  // plain ASCII text are written into the screen without libvterm where it would write them as
  // they are (screen-plain-text.h); false sends every glyph through libvterm, for the tests that
  // check the two give the same frames.
  ~Renderer() noexcept(false);
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  void feed(std::string_view bytes);
  // Parses raw PTY output. Answers to queries in it become available from takeReplies().

  void resize(int columns, int rows);
  // Resizes the emulator (a dispatched resize): a change of columns reflows the normal buffer's
  // wrapped lines, fewer rows drop those below the cursor first (see ScreenModel::resize).

  RenderedScreen snapshot();
  // The current frame, unconditionally (tests, debugging). After the budget ran out it shows
  // the last emulated state.

  std::optional<RenderedScreen> capture(RenderBudget& budget);
  // The current frame if the budget admits it (it is then counted); otherwise nothing, and the
  // budget is marked truncated. A frame that would not fit is rejected before its
  // serialized_state is assembled. Once budget.exhausted() holds for the current size, the
  // renderer stops emulating for good and every later capture() returns nothing.

  std::vector<QueryReply> takeReplies();
  // Answers produced since the last call, in stream order; the owner writes each to the PTY.

  bool emulating() const;
  // False once capture() has stopped the emulation.

  uint64_t shortcutGlyphs() const;
  // Glyphs the text shortcut wrote without libvterm so far (tests, benchmarks).

 private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

}  // namespace rea::helper
