#include "helpers/pty/screen-pen.h"

namespace rea::helper {

namespace {

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

}  // namespace

bool applyPenAttr(Pen& pen, VTermAttr attr, const VTermValue& value) {
  switch (attr) {
    case VTERM_ATTR_BOLD:
      setFlag(pen.attrs, ATTR_BOLD, value.boolean);
      break;
    case VTERM_ATTR_UNDERLINE:
      setField(pen.attrs, ATTR_UNDERLINE_MASK, ATTR_UNDERLINE_SHIFT, value.number);
      break;
    case VTERM_ATTR_ITALIC:
      setFlag(pen.attrs, ATTR_ITALIC, value.boolean);
      break;
    case VTERM_ATTR_BLINK:
      setFlag(pen.attrs, ATTR_BLINK, value.boolean);
      break;
    case VTERM_ATTR_REVERSE:
      setFlag(pen.attrs, ATTR_REVERSE, value.boolean);
      break;
    case VTERM_ATTR_STRIKE:
      setFlag(pen.attrs, ATTR_STRIKE, value.boolean);
      break;
    case VTERM_ATTR_FONT:
      setField(pen.attrs, ATTR_FONT_MASK, ATTR_FONT_SHIFT, value.number);
      break;
    case VTERM_ATTR_FOREGROUND:
      pen.fg = toColor(value.color);
      break;
    case VTERM_ATTR_BACKGROUND:
      pen.bg = toColor(value.color);
      break;
    default:
      return false;
  }
  return true;
}

}  // namespace rea::helper
