// Renderer::Impl's write path (screen-renderer-impl.h): the bytes of each chunk to libvterm,
// looked at only where libvterm 0.1.4 needs help (a UTF-8 character split across chunks or cut
// short, a width it measures wrongly, a wide glyph with no room, a combining mark in a later
// write than its glyph), and the control sequences the scanner finds in them, which the Renderer
// corrects or completes at their place in the stream.

#include <algorithm>
#include <cstring>
#include <optional>

#include "helpers/pty/screen-cell.h"
#include "helpers/pty/screen-corrections.h"
#include "helpers/pty/screen-renderer-impl.h"
#include "helpers/pty/screen-utf8.h"
#include "helpers/pty/screen-widths.h"

namespace rea::helper {

void Renderer::Impl::writeRaw(std::string_view bytes, bool endsInText) {
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

void Renderer::Impl::write(std::string_view bytes, size_t textFrom) {
  // Bytes for libvterm. Characters of three or four UTF-8 bytes (the only ones from U+1100 on,
  // where widths can be wrong or wide) are looked at; everything else goes through unchanged,
  // but for a character split at the end, kept back until the next chunk completes it.
  // `textFrom`: the bytes end the chunk, and libvterm's parser is in its ground state from this
  // offset in them on (text and C0 controls).
  if (!carry.empty()) {
    std::string joined = carry + std::string(bytes);
    if (textFrom != std::string_view::npos) textFrom = textFrom == 0 ? 0 : textFrom + carry.size();
    carry.clear();
    writeChecked(joined, textFrom);
  } else {
    writeChecked(bytes, textFrom);
  }
}

void Renderer::Impl::writeChecked(std::string_view bytes, size_t textFrom) {
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

void Renderer::Impl::feed(std::string_view bytes) {
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

std::string_view Renderer::Impl::joinLateMarks(std::string_view bytes) {
  // `bytes` continue the stream right after a glyph: combining marks at their start would have
  // joined it had libvterm had them in the same write (screen-combining.h).
  settle();
  return lateMarks.join(bytes, model, lastGlyphAt, cursor());
}

// implements ControlSink -------------------------------------------------------------------------

void Renderer::Impl::onSequence(const ControlSequence& sequence, size_t end) {
  if (!emulating) {
    QueryReply reply;
    int row = lastCursor.row + 1 - (modes.origin() ? modes.regionTop() : 0);
    int col = lastCursor.col + 1 - (modes.origin() ? modes.regionLeft() : 0);
    if (answerQuery(sequence, row, col, reply)) replies.push_back(std::move(reply));
    return;
  }
  plainText.onSequence(sequence);
  if (!rendererMayActOn(sequence)) {
    // Most sequences (CUP, EL, ...): none of the checks below acts on them, and the settle()
    // below is a no-op here (the scanner runs outside libvterm's callbacks, and writeRaw()
    // settles before returning).
    return;
  }
  if (sequence.csi && sequence.final == 'm') {
    // SGR, the commonest of those left: only the overline is ours.
    applyOverline(sequence, end);
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

bool Renderer::Impl::changesWriteModes(const ControlSequence& sequence) {
  if (!sequence.csi) return sequence.intermediateCount == 0 && sequence.final == 'c';  // RIS
  if (sequence.intermediateCount == 0 && (sequence.final == 'h' || sequence.final == 'l')) {
    return sequence.leader == 0 || sequence.leader == '?';
  }
  return sequence.final == 'p' && sequence.hasIntermediate('!');  // DECSTR
}

void Renderer::Impl::applyOverline(const ControlSequence& sequence, size_t end) {
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

void Renderer::Impl::onOverlongSequence(size_t at) {
  // libvterm 0.1.4 would write this separator's argument past its array (a heap overflow
  // any target can trigger): cancel the sequence there, as CAN does, and keep the rest of it
  // from libvterm. xterm would act on the first 16 parameters; such a sequence is no real
  // program's output.
  if (!emulating) return;
  writeUpTo(at);
  writeRaw("\x18");
  dropping = true;
}

void Renderer::Impl::onOverlongEnd(size_t end) {
  fedUpTo = end;
  dropping = false;
}

void Renderer::Impl::onGround(size_t from, size_t to) {
  // Text and C0 controls: follow the shifts (SO, SI) and single shifts in them, and write each
  // run of printable ASCII long enough to pay for it itself (writeTextRun).
  if (!emulating) return;
  const char* data = chunk.data();
  size_t i = from;
  while (i < to) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    if (c < 0x20 || c == 0x7f) {
      if (c == 0x0e || c == 0x0f) plainText.onShift(c);
      i++;
      continue;
    }
    if (c >= 0x80) {
      plainText.onText();
      i++;
      continue;
    }
    size_t start = i++;
    while (i + 8 <= to) {
      // Eight bytes at a time while all are 0x20-0x7e: no byte below 0x20 (a borrow out of
      // the subtraction sets its top bit), none at 0x7f or above (the addition carries into it).
      uint64_t word;
      memcpy(&word, data + i, 8);
      if (((word - 0x2020202020202020ull) | (word + 0x0101010101010101ull) | word) &
          0x8080808080808080ull) {
        break;
      }
      i += 8;
    }
    while (i < to && static_cast<unsigned char>(data[i] - 0x20) < 0x5f)
      i++;
    if (textShortcut && plainText.holds() && i - start > MIN_SHORTCUT) writeTextRun(start, i);
    plainText.onText();
  }
}

void Renderer::Impl::onShiftInSequence(unsigned char control) {
  plainText.onShift(control);
}

void Renderer::Impl::writeTextRun(size_t from, size_t to) {
  // Printable ASCII [from, to) of the chunk, in the ground state, which libvterm would write as
  // itself (plainText): the glyphs that land away from the right edge go into the model here,
  // as onPutGlyph's fast path would put them, and libvterm's cursor moves past them (CUF). The
  // last character, and any that reach the last two columns, still go through libvterm, so
  // that the pending wrap, a combining mark after the run and the move callbacks are its own.
  if (standIn != 0) return;  // (never `dropping`: that is inside a CSI, not the ground state)
  writeUpTo(from);           // libvterm's cursor is current from here on
  // A lead byte right before the run is kept back as if the chunk ended there: the run's first
  // byte must reach libvterm after it (the two make a U+FFFD), so the run goes the general way.
  if (!carry.empty()) return;
  CursorPosition pos = cursor();
  int lastColumn = model.columns() - 3;  // onPutGlyph's fast path asks for moves from there on
  if (pos.col > lastColumn || pos.row < 0 || pos.row >= model.rows()) return;
  // A glyph in column 0 with a wrap pending in the bookkeeping (settled: writeUpTo() ends with
  // writeRaw()) would take onPutGlyph's slow path, which marks the row above continued.
  // libvterm's cursor then waits at the edge, so this does not happen; the guard keeps the
  // shortcut to what the fast path does.
  if (pos.col == 0 && wrapPending) return;
  // A double-width row would wrap at half the width. (libvterm keeps DECDWL only if a setlineinfo
  // callback accepts it, and the Renderer has none: a guard should that change.)
  const VTermLineInfo* line = vterm_state_get_lineinfo(state, pos.row);
  if (line == nullptr || line->doublewidth || line->doubleheight) return;
  size_t count = std::min(to - from - 1, static_cast<size_t>(lastColumn - pos.col + 1));
  if (count < MIN_SHORTCUT) return;
  model.putAscii(pos.row, pos.col, chunk.substr(from, count));
  shortcutGlyphs += count;
  fastGlyphAt = {pos.row, static_cast<int>(pos.col + count - 1)};
  fastPending = true;
  fedUpTo = from + count;
  char move[16];  // CSI count C, the count's digits written backwards from the end
  char* at = move + sizeof(move);
  *--at = 'C';
  for (size_t n = count; n != 0; n /= 10)
    *--at = static_cast<char>('0' + n % 10);
  *--at = '[';
  *--at = '\x1b';
  writeRaw(std::string_view(at, static_cast<size_t>(move + sizeof(move) - at)));
}

void Renderer::Impl::writeUpTo(size_t end) {
  write(chunk.substr(fedUpTo, end - fedUpTo));
  fedUpTo = end;
}

std::string Renderer::Impl::clampedCursorMove(CursorPosition pos) const {
  // CUP counts from the region's top (and left margin) in origin mode.
  int row = std::min(pos.row, model.rows() - 1) - (modes.origin() ? modes.regionTop() : 0);
  int col = std::min(pos.col, model.columns() - 1) - (modes.origin() ? modes.regionLeft() : 0);
  return "\x1b[" + std::to_string(std::max(row, 0) + 1) + ";" +
         std::to_string(std::max(col, 0) + 1) + "H";
}

}  // namespace rea::helper
