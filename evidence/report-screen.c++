#include "evidence/report-screen.h"

#include <nlohmann/json.hpp>

#include "evidence/limits.h"
#include "evidence/utf.h"

namespace rea::evidence {
namespace {

constexpr unsigned char ESC = 0x1b;
constexpr unsigned char BEL = 0x07;

int64_t scenarioRows(const Capture& capture) {
  const Json& scenario = *capture.manifest.scenario;
  const int64_t fallback = terminal::ROWS.defaultValue;
  if (!scenario.is_object()) return fallback;
  auto member = scenario.find("terminal");
  if (member == scenario.end() || !member->is_object()) return fallback;
  auto rows = member->find("rows");
  if (rows == member->end() || !rows->is_number_integer()) return fallback;
  int64_t value = rows->get<int64_t>();
  return terminal::ROWS.contains(value) ? value : fallback;
}

class PlainText {
  // Accumulates the visible text of an output stream, one control or character at a time.
 public:
  void newline() {
    lines.push_back(std::move(current));
    current.clear();
    restartLine = false;
  }
  void carriageReturn() { restartLine = true; }
  void backspace() {
    // Removes one whole UTF-8 character, never half of one.
    while (!current.empty() && (static_cast<unsigned char>(current.back()) & 0xC0) == 0x80) {
      current.pop_back();
    }
    if (!current.empty()) current.pop_back();
  }
  void append(std::string_view text) {
    if (restartLine) {
      current.clear();
      restartLine = false;
    }
    current.append(text);
  }
  std::vector<std::string> finish() {
    lines.push_back(std::move(current));
    return std::move(lines);
  }

 private:
  std::vector<std::string> lines;
  std::string current;
  bool restartLine = false;
};

// Each skip function receives the offset just after the sequence introducer and returns the
// offset just after the sequence (or the end of the text for an unterminated one).

size_t skipControlSequence(std::string_view text, size_t i) {
  // CSI: parameter and intermediate bytes, then one final byte 0x40–0x7E.
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i++]);
    if (c >= 0x40 && c <= 0x7e) break;
  }
  return i;
}

size_t skipString(std::string_view text, size_t i) {
  // OSC, DCS, SOS, PM, APC: up to BEL, ST (ESC \) or the 8-bit ST U+009C.
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == BEL) return i + 1;
    if (c == ESC && i + 1 < text.size() && text[i + 1] == '\\') return i + 2;
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x9c) {
      return i + 2;
    }
    ++i;
  }
  return i;
}

size_t skipEscape(std::string_view text, size_t i) {
  if (i >= text.size()) return i;
  char c = text[i];
  if (c == '[') return skipControlSequence(text, i + 1);
  if (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') return skipString(text, i + 1);
  // nF sequences (e.g. `ESC ( B`): intermediates 0x20–0x2F, then one final byte.
  while (i < text.size() && static_cast<unsigned char>(text[i]) >= 0x20 &&
         static_cast<unsigned char>(text[i]) <= 0x2f) {
    ++i;
  }
  return i < text.size() ? i + 1 : i;
}

size_t skipC1(std::string_view text, size_t i, unsigned char code) {
  // `code` is the C1 control U+0080–U+009F whose two UTF-8 bytes end just before `i`.
  if (code == 0x9b) return skipControlSequence(text, i);
  if (code == 0x9d || code == 0x90 || code == 0x98 || code == 0x9e || code == 0x9f) {
    return skipString(text, i);
  }
  return i;
}

}  // namespace

std::vector<std::string> plainTerminalText(std::string_view output) {
  std::string text = sanitizeUtf8(output);
  std::string_view view = text;
  PlainText plain;
  size_t i = 0;
  while (i < view.size()) {
    unsigned char c = static_cast<unsigned char>(view[i]);
    if (c == ESC) {
      i = skipEscape(view, i + 1);
    } else if (c == '\n') {
      plain.newline();
      ++i;
    } else if (c == '\r') {
      // CR LF is one line end; a lone CR starts the line over.
      if (i + 1 >= view.size() || view[i + 1] != '\n') plain.carriageReturn();
      ++i;
    } else if (c == '\b') {
      plain.backspace();
      ++i;
    } else if (c == '\t') {
      plain.append("\t");
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      ++i;
    } else if (c == 0xc2 && i + 1 < view.size() &&
               static_cast<unsigned char>(view[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(view[i + 1]) <= 0x9f) {
      i = skipC1(view, i + 2, static_cast<unsigned char>(view[i + 1]));
    } else {
      // A run of printable text up to the next byte that needs a decision.
      size_t end = i + 1;
      while (end < view.size()) {
        unsigned char next = static_cast<unsigned char>(view[end]);
        if (next < 0x20 || next == 0x7f || next == 0xc2) break;
        ++end;
      }
      plain.append(view.substr(i, end - i));
      i = end;
    }
  }
  return plain.finish();
}

ReportScreen screenAt(const Capture& capture, std::optional<int64_t> momentMs) {
  ReportScreen screen;
  // Rendered frames are non-decreasing in at_ms (validated on import, B §5.4).
  for (const RenderedFrame& frame : capture.renderedFrames) {
    if (momentMs && frame.atMs > *momentMs) break;
    screen.frame = &frame;
  }
  if (screen.frame != nullptr) {
    screen.source = ReportScreen::Source::RENDERED;
    screen.lines = screen.frame->lines;
    return screen;
  }

  std::string output;
  for (const TerminalFrame& frame : capture.frames) {
    if (momentMs && frame.atMs > *momentMs) break;
    output += frame.data;
    ++screen.rawFrameCount;
  }
  screen.lines = plainTerminalText(output);
  size_t rows = static_cast<size_t>(scenarioRows(capture));
  if (screen.lines.size() > rows) {
    screen.rawLinesDropped = screen.lines.size() - rows;
    screen.lines.erase(screen.lines.begin(),
                       screen.lines.begin() + static_cast<ptrdiff_t>(screen.rawLinesDropped));
  }
  return screen;
}

}  // namespace rea::evidence
