#include "helpers/pty/screen-queries.h"

#include <string_view>

namespace rea::helper {

namespace {

constexpr char C1_CSI = '\x9b';  // libvterm sends 8-bit controls after S8C1T (ESC SP G)
constexpr char C1_DCS = '\x90';
constexpr char C1_ST = '\x9c';

std::string nameReply(std::string_view reply) {
  // Look at the reply as 7-bit: the body after "ESC [" or CSI.
  if (reply.empty()) return "other";
  if (reply[0] == C1_DCS || (reply.size() >= 2 && reply[0] == '\x1b' && reply[1] == 'P')) {
    return "DECRQSS";
  }
  std::string_view body;
  if (reply[0] == C1_CSI) {
    body = reply.substr(1);
  } else if (reply.size() >= 2 && reply[0] == '\x1b' && reply[1] == '[') {
    body = reply.substr(2);
  } else {
    return "other";
  }
  if (body.empty()) return "other";
  char final = body.back();
  char leader = body[0];
  if (final == 'c') return leader == '>' ? "DA2" : "DA";
  if (final == 'R') return leader == '?' ? "DSR-cursor-dec" : "DSR-cursor";
  if (final == 'n') return "DSR-status";
  if (final == 'y' && body.size() >= 2 && body[body.size() - 2] == '$') return "DECRQM";
  return "other";
}

// Length of the complete sequence at the start of `bytes`, or 0 if it is incomplete.
size_t csiLength(std::string_view bytes, size_t start) {
  for (size_t i = start; i < bytes.size(); i++) {
    unsigned char c = bytes[i];
    if (c >= 0x40 && c <= 0x7e) return i + 1;
  }
  return 0;
}

size_t stringLength(std::string_view bytes, size_t start) {
  for (size_t i = start; i < bytes.size(); i++) {
    if (bytes[i] == C1_ST) return i + 1;
    if (bytes[i] == '\x1b' && i + 1 < bytes.size() && bytes[i + 1] == '\\') return i + 2;
  }
  return 0;
}

size_t sequenceLength(std::string_view bytes) {
  if (bytes[0] == C1_CSI) return csiLength(bytes, 1);
  if (bytes[0] == C1_DCS) return stringLength(bytes, 1);
  if (bytes[0] != '\x1b') {
    size_t next = bytes.find_first_of("\x1b\x9b\x90", 1);
    return next == std::string_view::npos ? bytes.size() : next;
  }
  if (bytes.size() < 2) return 0;
  if (bytes[1] == '[') return csiLength(bytes, 2);
  if (bytes[1] == 'P' || bytes[1] == ']') return stringLength(bytes, 2);
  return 2;
}

}  // namespace

void takeCompleteReplies(std::string& output, std::vector<QueryReply>& replies) {
  size_t start = 0;
  while (start < output.size()) {
    std::string_view rest(output.data() + start, output.size() - start);
    size_t length = sequenceLength(rest);
    if (length == 0) break;
    std::string_view reply = rest.substr(0, length);
    replies.push_back(QueryReply{nameReply(reply), std::string(reply)});
    start += length;
  }
  output.erase(0, start);
}

bool answerQuery(const ControlSequence& sequence, int cursorRow, int cursorCol, QueryReply& reply) {
  if (!sequence.csi || sequence.intermediateCount != 0) return false;
  if (sequence.final == 'c' && sequence.leader == 0) {
    reply = QueryReply{"DA", "\x1b[?1;2c"};
  } else if (sequence.final == 'c' && sequence.leader == '>') {
    reply = QueryReply{"DA2", "\x1b[>0;100;0c"};
  } else if (sequence.final == 'n' && sequence.leader == 0 && sequence.param(0, 0) == 5) {
    reply = QueryReply{"DSR-status", "\x1b[0n"};
  } else if (sequence.final == 'n' && sequence.param(0, 0) == 6 &&
             (sequence.leader == 0 || sequence.leader == '?')) {
    bool dec = sequence.leader == '?';
    reply = QueryReply{dec ? "DSR-cursor-dec" : "DSR-cursor",
                       std::string(dec ? "\x1b[?" : "\x1b[") + std::to_string(cursorRow) + ";" +
                           std::to_string(cursorCol) + "R"};
  } else {
    return false;
  }
  return true;
}

}  // namespace rea::helper
