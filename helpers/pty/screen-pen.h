#pragma once
// libvterm's pen attributes (its setpenattr callback) in our Pen's terms (screen-cell.h).
//
// Errors: none.

#include "helpers/pty/screen-cell.h"

#include <vterm.h>

namespace rea::helper {

bool applyPenAttr(Pen& pen, VTermAttr attr, const VTermValue& value);
// Applies one attribute libvterm reports; false for one the Pen does not keep (libvterm 0.1.4
// reports none other).

}  // namespace rea::helper
