#pragma once
// Transcripts for the differential renderer test: what a program wrote to its terminal, as raw
// output chunks and resizes, replayed into our Renderer and into tmux (tmux-driver.h).
//
// Two sources:
//  * generateTranscript(seed): a deterministic random transcript (std::mt19937) built from
//    complete pieces (text, wide and combining characters, insert mode, autowrap on/off, scroll
//    regions, the alternate screen, SGR attributes and colours, cursor moves, erases, resizes).
//    Every step ends outside any escape sequence, so the marker tmux-driver.h appends is parsed
//    as a sequence of its own.
//  * loadTranscript(path): a recording of a real program (tests/data/render-diff/*.json,
//    scripts/record-transcript.py): {"columns":C,"rows":R,"steps":[{"output":"..."} or
//    {"resize":[C,R]}, ...]}; the output strings are the bytes decoded as UTF-8. Chunks are
//    merged until they end outside an escape sequence (endsInGround), for the same reason.
//
// Errors: loadTranscript throws std::runtime_error for a file it cannot read or parse.

#include "tests/test-support.h"

#include <nlohmann/json.hpp>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace rea::test {

struct TranscriptStep {
  std::string output;  // bytes to feed (empty for a resize)
  int columns = 0;     // > 0: a resize to columns x rows
  int rows = 0;
  int source = -1;  // generateTranscript(..., piecewise): the index of the unsplit step
};

struct Transcript {
  std::string name;
  int columns = 80;
  int rows = 24;
  std::vector<TranscriptStep> steps;
};

inline bool endsInGround(const std::string& bytes) {
  // A small VT parser state machine, enough to tell whether the bytes end inside an escape
  // sequence, a control string or a UTF-8 character.
  enum { GROUND, ESCAPE, CSI, STRING, STRING_ESCAPE } state = GROUND;
  int utf8Pending = 0;
  for (unsigned char c : bytes) {
    switch (state) {
      case GROUND:
        if (utf8Pending > 0 && (c & 0xc0) == 0x80) {
          utf8Pending--;
          continue;
        }
        utf8Pending = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        if (c == 0x1b) state = ESCAPE;
        break;
      case ESCAPE:
        if (c == '[') {
          state = CSI;
        } else if (c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X') {
          state = STRING;
        } else if (c < 0x20 || (c >= 0x20 && c <= 0x2f)) {
          // an intermediate byte (ESC ( B, ESC # 8): stay until the final byte
        } else {
          state = GROUND;
        }
        break;
      case CSI:
        if (c >= 0x40 && c <= 0x7e) state = GROUND;
        break;
      case STRING:
        if (c == 0x07) state = GROUND;
        if (c == 0x1b) state = STRING_ESCAPE;
        break;
      case STRING_ESCAPE:
        state = c == '\\' ? GROUND : STRING;
        break;
    }
  }
  return state == GROUND && utf8Pending == 0;
}

inline Transcript loadTranscript(const std::string& path) {
  std::string text = readFile(path);
  if (text.empty()) throw std::runtime_error("cannot read " + path);
  nlohmann::json json = nlohmann::json::parse(text);
  Transcript transcript;
  transcript.name = path.substr(path.rfind('/') + 1);
  transcript.columns = json.at("columns").get<int>();
  transcript.rows = json.at("rows").get<int>();
  std::string pending;
  for (const nlohmann::json& step : json.at("steps")) {
    if (step.contains("output")) {
      pending += step.at("output").get<std::string>();
      if (endsInGround(pending)) {
        transcript.steps.push_back(TranscriptStep{pending, 0, 0});
        pending.clear();
      }
    } else {
      if (!pending.empty()) transcript.steps.push_back(TranscriptStep{pending, 0, 0});
      pending.clear();
      transcript.steps.push_back(TranscriptStep{"", step.at("resize").at(0).get<int>(),
                                                step.at("resize").at(1).get<int>()});
    }
  }
  if (!pending.empty()) transcript.steps.push_back(TranscriptStep{pending, 0, 0});
  return transcript;
}

inline std::string randomPiece(std::mt19937& random, int columns, int rows) {
  static const char* const TEXT[] = {
      "hello",  "world ", "abc",    "0123456789", "x",    "The quick brown fox ",
      "日本語", "雪",     "한국어", "ｆｕｌｌ",   "é",    "e\xcc\x81",  // e + combining acute
      "ñandú",  "Ω≈ç√",   "→←↑↓",   "中文字符串", "─│┌┐", "😀",
      "🎉x",     "🫠",   "🥲",   "a\tb\tc",    "  ",   "-----"};
  static const char* const CONTROLS[] = {"\r",
                                         "\n",
                                         "\r\n",
                                         "\b",
                                         "\x1b[K",
                                         "\x1b[1K",
                                         "\x1b[2K",
                                         "\x1b[J",
                                         "\x1b[1J",
                                         "\x1b[2J",
                                         "\x1b[A",
                                         "\x1b[B",
                                         "\x1b[3C",
                                         "\x1b[2D",
                                         "\x1b[H",
                                         "\x1b[2@",
                                         "\x1b[P",
                                         "\x1b[2P",
                                         "\x1b[L",
                                         "\x1b[M",
                                         "\x1b[3X",
                                         "\x1b[S",
                                         "\x1b[T",
                                         "\x1bM",
                                         "\x1b"
                                         "D",
                                         "\x1b"
                                         "E",
                                         "\x1b[4h",
                                         "\x1b[4l",
                                         "\x1b[?7l",
                                         "\x1b[?7h",
                                         "\x1b[r",
                                         "\x1b[1m",
                                         "\x1b[31m",
                                         "\x1b[0m",
                                         "\x1b[4;7m",
                                         "\x1b[38;5;208m",
                                         "\x1b[48;2;10;20;30m",
                                         "\x1b[m",
                                         "\x1b[53m",
                                         "\x1b[3m",
                                         "\x1b[?1049h",
                                         "\x1b[?1049l",
                                         "\x1b[?47h",
                                         "\x1b[?47l",
                                         "\x1b[?1047h",
                                         "\x1b[?1047l",
                                         "\x1b"
                                         "7",
                                         "\x1b"
                                         "8",
                                         "\x1b[s",
                                         "\x1b[u",
                                         "\x1b[G",
                                         "\x1b[d",
                                         "\x1b[E",
                                         "\x1b[F",
                                         "\x1b[I",
                                         "\x1b[Z"};
  std::string piece;
  switch (random() % 6) {
    case 0:
    case 1:
      return TEXT[random() % (sizeof TEXT / sizeof TEXT[0])];
    case 2:
      // After a CR: a wrap may be pending after text, and tmux's cursor then stands past the
      // last column, where an erase, insert or delete acts on nothing (KNOWN_DIFFERENCES).
      return std::string("\r") + CONTROLS[random() % (sizeof CONTROLS / sizeof CONTROLS[0])];
    case 3: {
      // One random() a statement: the order operands of + are evaluated in is the compiler's
      // (g++ and clang differ), and the corpus must be the same in every tree.
      unsigned row = 1 + random() % rows;
      unsigned col = 1 + random() % columns;
      return "\x1b[" + std::to_string(row) + ";" + std::to_string(col) + "H";
    }
    case 4: {
      // A scroll region of at least two rows (see KNOWN_DIFFERENCES), line feeds at its bottom,
      // then the whole screen again.
      int top = 1 + static_cast<int>(random() % (rows - 1));
      int bottom = top + 1 + static_cast<int>(random() % (rows - top));
      piece = "\x1b[" + std::to_string(top) + ";" + std::to_string(bottom) + "r";
      piece += "\x1b[" + std::to_string(bottom) + ";1Hline\n\nend";
      if (random() % 2 == 0) piece += "\x1b[1S\x1b[1T\x1b[L\x1b[M";
      return piece + "\x1b[r";
    }
    default: {
      // Text that reaches the right edge: a run of letters or wide characters.
      int count = 1 + static_cast<int>(random() % (2 * columns));
      bool wide = random() % 2 == 0;
      for (int i = 0; i < count; i++)
        piece += wide ? "字" : std::string(1, static_cast<char>('a' + (i % 26)));
      return piece;
    }
  }
}

inline Transcript generateTranscript(unsigned seed, bool resizes = true, bool piecewise = false) {
  // piecewise: every piece is a step of its own (the same bytes; a difference is then found at
  // the piece that made it, for investigating one), `source` says which step it was part of.
  std::mt19937 random(seed);
  Transcript transcript;
  transcript.name = "generated-" + std::to_string(seed);
  transcript.columns = 5 + static_cast<int>(random() % 36);
  transcript.rows = 2 + static_cast<int>(random() % 10);
  int columns = transcript.columns;
  int rows = transcript.rows;
  int steps = 3 + static_cast<int>(random() % 8);
  for (int step = 0; step < steps; step++) {
    if (random() % 5 == 0 && resizes) {
      columns = 3 + static_cast<int>(random() % 40);
      rows = 2 + static_cast<int>(random() % 12);
      transcript.steps.push_back(TranscriptStep{"", columns, rows, step});
      continue;
    }
    std::string output;
    int pieces = 1 + static_cast<int>(random() % 12);
    for (int i = 0; i < pieces; i++) {
      std::string piece = randomPiece(random, columns, rows);
      if (piecewise) {
        transcript.steps.push_back(TranscriptStep{piece, 0, 0, step});
      } else {
        output += piece;
      }
    }
    if (!piecewise) transcript.steps.push_back(TranscriptStep{output, 0, 0});
  }
  return transcript;
}

}  // namespace rea::test
