#pragma once
// ControlScanner: a small, cheap recogniser of escape and control sequences in terminal output,
// for the few things the renderer must know that libvterm 0.1.4's state layer does not report:
// mode changes (for serialized_state), ED 3 (clear scrollback), and, once rendering has stopped,
// the queries a program waits for (DA, DSR). It finds ESC with memchr and parses only the
// sequences, so plain text costs almost nothing.
//
// Sequences may be split across scan() calls at any byte: the scanner keeps its state. It follows
// libvterm 0.1.4's parser in UTF-8 mode (7-bit ESC sequences only, C1 bytes are text; CAN/SUB
// cancel; ESC restarts; other C0 controls inside a sequence do not break it; a non-ASCII byte is
// skipped after ESC but abandons a CSI; OSC, DCS, SOS, PM and APC strings end at BEL or ST, or
// at an ESC that starts a new sequence, and hide their content). The Renderer's guards against
// libvterm bugs depend on seeing the sequences libvterm sees.
//
// Errors: none; any byte string is accepted.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rea::helper {

struct ControlSequence {
  static constexpr int MAX_PARAMS = 16;
  static constexpr int MAX_INTERMEDIATES = 3;

  bool csi;        // true: ESC [ ... final; false: ESC intermediates final
  char leader;     // CSI private marker ('?', '>', '<', '=') or 0
  char final;      // the final byte
  int paramCount;  // CSI parameters, ';' or ':' separated; missing ones are -1
  int32_t params[MAX_PARAMS];
  int intermediateCount;
  char intermediates[MAX_INTERMEDIATES];

  int param(int i, int fallback) const {
    return i < paramCount && params[i] >= 0 ? params[i] : fallback;
  }
  bool hasIntermediate(char c) const { return intermediateCount == 1 && intermediates[0] == c; }
  bool plain() const { return leader == 0 && intermediateCount == 0; }
};

bool restoresSavedCursor(const ControlSequence& sequence);

bool rendererMayActOn(const ControlSequence& sequence);
// False for a sequence that none of the Renderer's checks acts on (mayNeedCorrection,
// restoresSavedCursor, TerminalModes::apply, the write modes, the overline, ?47, ED 3), decided
// by its final byte alone so that the commonest sequences (CUP, EL, ...) cost one switch.
// screen-scanner-test.c++ checks it against those checks over every final byte.
// True for DECRC (ESC 8), CSI u (SCORC) and CSI ? 1048 l / ? 1049 l. libvterm 0.1.4 restores a
// saved cursor without clamping it to the current size, so after one of these the Renderer
// checks the cursor (see Renderer::Impl::onSequence).

class ControlSink {
 public:
  virtual void onSequence(const ControlSequence& sequence, size_t end) = 0;
  // `end` is the offset just past the sequence's final byte within the current scan() input.

  virtual void onOverlongSequence(size_t at) { (void)at; }
  // A CSI reached its 16th parameter separator (';' or ':') at offset `at`: libvterm 0.1.4
  // stores every separated argument without a bound (CSI_ARGS_MAX is 16) and writes past its
  // parser's array at this byte. The scanner ignores the rest of the sequence; the Renderer
  // cancels it in libvterm (CAN) and must not feed it the bytes up to onOverlongEnd().

  virtual void onOverlongEnd(size_t end) { (void)end; }
  // The ignored sequence reported by onOverlongSequence ended: bytes from `end` on (the scan()
  // input's offset) belong to what follows it (an ESC starting a new sequence stays there).

  virtual void onGround(size_t from, size_t to) { (void)from, (void)to; }
  // Bytes [from, to) of the scan() input are in the ground state: text and C0 controls, each a
  // character or a control to libvterm (no sequence starts or continues in them). Reported
  // before the sequence that follows them; a stretch split across scan() calls is reported in
  // parts.

  virtual void onShiftInSequence(unsigned char control) { (void)control; }
  // SO or SI (0x0e, 0x0f) inside a sequence or string: libvterm executes C0 controls there too,
  // so the character set in use changes without ending the sequence.
 protected:
  ~ControlSink() = default;
};

class ControlScanner {
 public:
  void scan(std::string_view bytes, ControlSink& sink);
  // Reports every sequence completed within `bytes`, in order.

  bool inGround() const { return state == State::GROUND; }
  size_t groundFrom() const { return groundStart; }
  // While inGround(): the offset in the last scan()'s input from which on it was in the ground
  // state (text and C0 controls; 0 if it was all along). A byte there that is not a control is
  // text to libvterm.

 private:
  enum class State : uint8_t { GROUND, ESCAPE, CSI, CSI_IGNORE, STRING, STRING_ESCAPE };
  State state = State::GROUND;
  ControlSequence current{};
  bool paramStarted = false;
  int separators = 0;     // ';' and ':' in the current CSI (libvterm's argument index)
  bool overlong = false;  // the current CSI was cut at its 16th separator (onOverlongSequence)
  size_t groundStart = 0;

  void startEscape();
  void startCsi();
};

}  // namespace rea::helper
