#include "helpers/pty/screen-plain-text.h"

namespace rea::helper {

void PlainText::onSequence(const ControlSequence& sequence) {
  if (sequence.csi) {
    switch (sequence.final) {
      case 'h':
      case 'l':
        // libvterm 0.1 sets or resets the mode its first parameter names, and only that one.
        if (sequence.intermediateCount != 0) return;
        if (sequence.leader == 0 && sequence.param(0, -1) == 4) insert = sequence.final == 'h';
        if (sequence.leader == '?' && sequence.param(0, -1) == 6) origin = sequence.final == 'h';
        return;
      case 'q':
        if (sequence.leader == 0 && sequence.hasIntermediate('"')) {
          int value = sequence.param(0, 0);
          if (value == 1) protecting = true;
          if (value == 0 || value == 2) protecting = false;
        }
        return;
      default:
        return;
    }
  }
  if (sequence.intermediateCount == 0) {
    switch (sequence.final) {
      case 'c':  // RIS
        *this = PlainText();
        break;
      case 'n':  // LS2
        gl = 2;
        break;
      case 'o':  // LS3
        gl = 3;
        break;
      case 'N':  // SS2 (ESC N is the 7-bit form of C1 0x8e)
      case 'O':  // SS3
        singleShift = true;
        break;
    }
    return;
  }
  char designator = sequence.intermediates[0];
  if (sequence.intermediateCount == 1 && designator >= '(' && designator <= '+') {
    uint8_t set = static_cast<uint8_t>(1 << (designator - '('));
    plainSets = static_cast<uint8_t>(sequence.final == 'B' ? plainSets | set : plainSets & ~set);
  }
}

void PlainText::onShift(unsigned char control) {
  if (control == 0x0e) gl = 1;  // SO (LS1)
  if (control == 0x0f) gl = 0;  // SI (LS0)
}

}  // namespace rea::helper
