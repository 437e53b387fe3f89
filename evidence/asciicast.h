#pragma once
// Asciicast v2 export of a capture (asciinema's recording format, one JSON value per line):
// a header with the terminal size and start time, then the capture's raw frames as "o" events,
// its dispatched resizes as "r" events and its dispatched, non-sensitive inputs as "i" events,
// ordered by time. The output frames are the capture's normalised, redacted text, so a cast
// never shows more than the Evidence does; playing it back (`asciinema cat`) yields exactly the
// concatenated `frames[].data`.
//
// Errors: none; a capture that passed import is always exportable.

#include <string>

#include "evidence/capture.h"

namespace rea::evidence {

std::string toAsciicast(const Capture& capture);
// Every line ends with '\n'. Times are seconds after T0 (frame and dispatch `at_ms` / 1000).

}  // namespace rea::evidence
