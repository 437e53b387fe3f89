#include "helpers/pty/screen-combining.h"

#include "helpers/pty/screen-cell.h"  // appendUtf8

#include <vterm.h>

#include <new>
#include <string>

namespace rea::helper {

namespace {

// One complete UTF-8 character at the start of `bytes`, or 0 bytes (ASCII, a control, an
// incomplete or invalid sequence: never a combining mark).
size_t decodeOne(std::string_view bytes, uint32_t& codePoint) {
  if (bytes.empty()) return 0;
  unsigned char lead = static_cast<unsigned char>(bytes[0]);
  size_t length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 0;
  if (length == 0 || lead > 0xf4 || bytes.size() < length) return 0;
  uint32_t cp = lead & (0x7f >> length);
  for (size_t k = 1; k < length; k++) {
    unsigned char c = static_cast<unsigned char>(bytes[k]);
    if ((c & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  codePoint = cp;
  return length;
}

int onProbeGlyph(VTermGlyphInfo* info, VTermPos, void* user) {
  *static_cast<uint32_t*>(user) = info->chars[0] == 'a' ? info->chars[1] : 0;
  return 1;
}

}  // namespace

CombiningProbe::CombiningProbe() : vt(vterm_new(1, 8)) {
  if (vt == nullptr) throw std::bad_alloc();
  vterm_set_utf8(vt, 1);
  VTermState* state = vterm_obtain_state(vt);
  static const VTermStateCallbacks CALLBACKS = [] {
    VTermStateCallbacks callbacks{};
    callbacks.putglyph = &onProbeGlyph;
    return callbacks;
  }();
  vterm_state_set_callbacks(state, &CALLBACKS, &joined);
  vterm_state_reset(state, 1);
}

CombiningProbe::~CombiningProbe() {
  vterm_free(vt);
}

bool CombiningProbe::isCombining(uint32_t codePoint) {
  // "a" and the code point in one write: libvterm makes them one glyph if it is combining.
  std::string probe = "\x1b[Ha";
  appendUtf8(probe, codePoint);
  joined = 0;
  vterm_input_write(vt, probe.data(), probe.size());
  return joined == codePoint;
}

size_t CombiningProbe::leadingMarks(std::string_view bytes, uint32_t* marks, size_t capacity,
                                    size_t& count) {
  size_t used = 0;
  count = 0;
  for (;;) {
    uint32_t codePoint = 0;
    size_t length = decodeOne(bytes.substr(used), codePoint);
    if (length == 0 || !isCombining(codePoint)) return used;
    if (count < capacity) marks[count] = codePoint;
    count++;
    used += length;
  }
}

std::string_view LateMarks::join(std::string_view bytes, ScreenModel& model, CursorPosition glyphAt,
                                 CursorPosition cursor) {
  if (glyphAt.row < 0 || glyphAt.row >= model.rows() || glyphAt.col < 0 ||
      glyphAt.col >= model.columns()) {
    return bytes;
  }
  const Cell& cell = model.visibleRow(glyphAt.row).at(glyphAt.col);
  int width = cell.isZeroWidth() ? 0 : cell.isWide() ? 2 : 1;
  if (cursor.row == glyphAt.row && cursor.col == glyphAt.col + width) return bytes;
  uint32_t chars[VTERM_CLUSTER + 1];
  size_t n = 0;
  if (cell.ch >= CLUSTER_BIT && !cell.isSpacer()) {
    for (char32_t c : model.clusters().get(cell.ch)) {
      if (n < VTERM_CLUSTER) chars[n++] = c;
    }
  } else if (!cell.isEmpty() && !cell.isSpacer()) {
    chars[n++] = cell.ch;
  }
  if (n == 0) return bytes;  // not a glyph (cannot happen right after one): libvterm's way
  uint32_t found[VTERM_CLUSTER];
  size_t total = 0;
  size_t length = probe.leadingMarks(bytes, found, VTERM_CLUSTER, total);
  if (length == 0) return bytes;
  if (at.row != glyphAt.row || at.col != glyphAt.col) {
    at = glyphAt;
    known = n;
    count = 0;
  }
  for (size_t k = 0; k < total && n < VTERM_CLUSTER; k++) {
    chars[n++] = found[k];
    marks[count++] = found[k];
  }
  chars[n] = 0;
  // The pen is the glyph's: no byte came between it and the marks.
  model.putGlyph(chars, width, glyphAt.row, glyphAt.col, (cell.pen.attrs & CELL_PROTECTED) != 0);
  return bytes.substr(length);
}

const uint32_t* LateMarks::merge(const uint32_t* chars, CursorPosition pos, bool again,
                                 uint32_t (&out)[VTERM_CLUSTER + 1]) {
  bool late = again && pos.row == at.row && pos.col == at.col;
  if (!late) forget();
  if (chars[1] == 0) return chars;
  size_t n = 0;
  for (size_t k = 0; n < VTERM_CLUSTER && chars[k] != 0; k++) {
    if (late && k == known) {
      for (size_t m = 0; m < count && n < VTERM_CLUSTER; m++)
        out[n++] = marks[m];
    }
    if (n < VTERM_CLUSTER) out[n++] = chars[k];
  }
  out[n] = 0;
  return out;
}

}  // namespace rea::helper
