#include "helpers/pty/screen-queries.h"

#include <string_view>

namespace rea::helper {

namespace {

std::string nameReply(std::string_view reply) {
  if (reply.size() >= 2 && reply[1] == 'P') return "DECRQSS";
  if (reply.size() < 3 || reply[1] != '[') return "other";
  char final = reply.back();
  char leader = reply[2];
  if (final == 'c') return leader == '>' ? "DA2" : "DA";
  if (final == 'R') return leader == '?' ? "DSR-cursor-dec" : "DSR-cursor";
  if (final == 'n') return "DSR-status";
  if (final == 'y' && reply.size() >= 4 && reply[reply.size() - 2] == '$') return "DECRQM";
  return "other";
}

// Length of the complete sequence at the start of `bytes`, or 0 if it is incomplete.
size_t sequenceLength(std::string_view bytes) {
  if (bytes[0] != '\x1b') {
    size_t next = bytes.find('\x1b');
    return next == std::string_view::npos ? bytes.size() : next;
  }
  if (bytes.size() < 2) return 0;
  if (bytes[1] == '[') {
    for (size_t i = 2; i < bytes.size(); i++) {
      unsigned char c = bytes[i];
      if (c >= 0x40 && c <= 0x7e) return i + 1;
    }
    return 0;
  }
  if (bytes[1] == 'P' || bytes[1] == ']') {
    size_t end = bytes.find("\x1b\\", 2);
    return end == std::string_view::npos ? 0 : end + 2;
  }
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

bool answerQuery(const ControlSequence& sequence, int cursorRow, int cursorCol,
                 QueryReply& reply) {
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
