#pragma once
// Terminal queries: programs that ask the terminal something (DA `ESC[c`, DSR `ESC[5n`, cursor
// position `ESC[6n`, ...) wait for the answer, so the pty helper must write one back to the PTY
// as xterm would. While the renderer runs, libvterm's state layer produces the answers (with the
// right cursor position); these functions name them so each can be recorded as an interaction
// event. Once the renderer has stopped emulating (its budget ran out), answerQuery() answers
// the queries that programs block on from the scanned sequence alone.
//
// Reply names (QueryReply::query): "DA" (primary device attributes), "DA2" (secondary),
// "DSR-status" (ESC[5n), "DSR-cursor" (ESC[6n), "DSR-cursor-dec" (ESC[?6n), "DECRQM" (mode
// request), "DECRQSS" (setting request), "other".
//
// Errors: none.

#include "helpers/pty/screen-scanner.h"

#include <string>
#include <vector>

namespace rea::helper {

struct QueryReply {
  std::string query;  // which query this answers (see above)
  std::string reply;  // the bytes to write to the PTY master
};

void takeCompleteReplies(std::string& output, std::vector<QueryReply>& replies);
// Moves each complete sequence at the front of `output` (bytes libvterm wrote for the host) into
// `replies`, named; an incomplete sequence at the end stays in `output` for the next call.

bool answerQuery(const ControlSequence& sequence, int cursorRow, int cursorCol, QueryReply& reply);
// If `sequence` is DA, DA2, DSR 5, DSR 6 or DECXCPR, sets `reply` to libvterm 0.1.4's answer and
// returns true. cursorRow/cursorCol are the 1-based values to report for a cursor position.

}  // namespace rea::helper
