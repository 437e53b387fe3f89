#include "helpers/pty/screen-scanner.h"

#include <cstring>

namespace rea::helper {

namespace {

constexpr unsigned char ESC = 0x1b;
constexpr unsigned char CAN = 0x18;
constexpr unsigned char SUB = 0x1a;
constexpr unsigned char BEL = 0x07;
constexpr unsigned char SO = 0x0e;
constexpr unsigned char SI = 0x0f;
constexpr int32_t PARAM_CAP = 100000;  // larger values are clamped (nothing we track is larger)

}  // namespace

bool restoresSavedCursor(const ControlSequence& sequence) {
  if (!sequence.csi) return sequence.intermediateCount == 0 && sequence.final == '8';
  if (sequence.plain() && sequence.final == 'u') return true;
  if (sequence.leader != '?' || sequence.intermediateCount != 0 || sequence.final != 'l') {
    return false;
  }
  for (int i = 0; i < sequence.paramCount; i++) {
    if (sequence.params[i] == 1048 || sequence.params[i] == 1049) return true;
  }
  return false;
}

void ControlScanner::startEscape() {
  state = State::ESCAPE;
  current.csi = false;
  current.leader = 0;
  current.final = 0;
  current.paramCount = 0;
  current.intermediateCount = 0;
}

void ControlScanner::startCsi() {
  state = State::CSI;
  current.csi = true;
  paramStarted = false;
  separators = 0;
}

void ControlScanner::scan(std::string_view bytes, ControlSink& sink) {
  const char* data = bytes.data();
  size_t size = bytes.size();
  size_t i = 0;
  while (i < size) {
    switch (state) {
      case State::GROUND: {
        groundStart = i;
        const void* found = memchr(data + i, ESC, size - i);
        if (found == nullptr) {
          if (i < size) sink.onGround(i, size);
          return;
        }
        size_t at = static_cast<const char*>(found) - data;
        if (at > i) sink.onGround(i, at);
        i = at + 1;
        startEscape();
        break;
      }
      case State::STRING: {
        // Skip the string body up to its terminator.
        while (i < size) {
          unsigned char c = data[i++];
          if (c == BEL || c == CAN || c == SUB) {
            state = State::GROUND;
            break;
          }
          if (c == ESC) {
            state = State::STRING_ESCAPE;
            break;
          }
          if (c == SO || c == SI) sink.onShiftInSequence(c);
        }
        break;
      }
      case State::STRING_ESCAPE: {
        unsigned char c = data[i];
        if (c == '\\') {
          i++;
          state = State::GROUND;
        } else {
          startEscape();  // the ESC ended the string and starts a new sequence with `c`
        }
        break;
      }
      case State::ESCAPE: {
        unsigned char c = data[i++];
        if (c == ESC) {
          startEscape();
        } else if (c == CAN || c == SUB) {
          state = State::GROUND;
        } else if (c < 0x20 || c == 0x7f) {
          // C0 controls are executed inside a sequence without ending it.
          if (c == SO || c == SI) sink.onShiftInSequence(c);
        } else if (c < 0x30) {
          if (current.intermediateCount < ControlSequence::MAX_INTERMEDIATES) {
            current.intermediates[current.intermediateCount++] = static_cast<char>(c);
          }
        } else if (current.intermediateCount == 0 && c == '[') {
          startCsi();
        } else if (current.intermediateCount == 0 &&
                   (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_')) {
          state = State::STRING;
        } else if (c < 0x7f) {
          current.final = static_cast<char>(c);
          state = State::GROUND;
          sink.onSequence(current, i);
        } else {
          // libvterm skips non-ASCII bytes here: ESC 0x9f 8 is still DECRC.
        }
        break;
      }
      case State::CSI:
      case State::CSI_IGNORE: {
        unsigned char c = data[i++];
        if (overlong && (c == ESC || c == CAN || c == SUB || (c >= 0x40 && c < 0x7f))) {
          // The cut sequence ends here; an ESC is the start of the next one.
          overlong = false;
          sink.onOverlongEnd(c == ESC ? i - 1 : i);
        }
        if (c == ESC) {
          startEscape();
        } else if (c == CAN || c == SUB) {
          state = State::GROUND;
        } else if (c < 0x20 || c == 0x7f) {
          // executed, sequence continues
          if (c == SO || c == SI) sink.onShiftInSequence(c);
        } else if (c >= 0x40 && c < 0x7f) {
          bool report = state == State::CSI;
          state = State::GROUND;
          if (report) {
            if (paramStarted && current.paramCount < ControlSequence::MAX_PARAMS) {
              current.paramCount++;
            }
            current.final = static_cast<char>(c);
            sink.onSequence(current, i);
          }
        } else if ((c == ';' || c == ':') && !overlong &&
                   ++separators >= ControlSequence::MAX_PARAMS) {
          // Counted in an ignored CSI too: libvterm may still be collecting its arguments.
          state = State::CSI_IGNORE;
          overlong = true;
          sink.onOverlongSequence(i - 1);
        } else if (state == State::CSI_IGNORE) {
          // swallow until the final byte
        } else if (c >= '0' && c <= '9') {
          if (current.intermediateCount > 0) {
            state = State::CSI_IGNORE;  // parameters after intermediates: malformed
          } else if (current.paramCount < ControlSequence::MAX_PARAMS) {
            int32_t& param = current.params[current.paramCount];
            if (!paramStarted || param < 0) param = 0;
            paramStarted = true;
            if (param < PARAM_CAP) param = param * 10 + (c - '0');
          }
        } else if (c == ';' || c == ':') {
          if (current.paramCount < ControlSequence::MAX_PARAMS) {
            if (!paramStarted) current.params[current.paramCount] = -1;
            current.paramCount++;
          }
          paramStarted = false;
        } else if (c >= 0x3c && c <= 0x3f) {
          if (current.paramCount == 0 && !paramStarted && current.leader == 0) {
            current.leader = static_cast<char>(c);
          } else {
            state = State::CSI_IGNORE;
          }
        } else if (c < 0x30) {
          if (current.intermediateCount < ControlSequence::MAX_INTERMEDIATES) {
            current.intermediates[current.intermediateCount++] = static_cast<char>(c);
          } else {
            state = State::CSI_IGNORE;
          }
        } else if (c >= 0x80) {
          state = State::GROUND;  // libvterm abandons a CSI at a non-ASCII byte
        } else {
          state = State::CSI_IGNORE;
        }
        break;
      }
    }
  }
  groundStart = size;  // a sequence or string ended with the last byte (or there was none)
}

bool rendererMayActOn(const ControlSequence& sequence) {
  switch (sequence.final) {
    case 'c':
    case '=':
    case '>':
    case '8':
      return !sequence.csi;
    case 'h':
    case 'l':
    case 'r':
    case 's':
    case 'u':
    case 'A':
    case 'B':
    case 'E':
    case 'F':
    case 'J':
    case 'm':
    case 'p':
    case 'q':
      return sequence.csi;
    default:
      return false;
  }
}

}  // namespace rea::helper
