#include "supervisor/assembly/assemble-rendered.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "evidence/frame-budget.h"
#include "supervisor/links/rendered-pack.h"

namespace rea::supervisor {

namespace {

using namespace rea::evidence;

const char REDACTED[] = "<redacted>";

struct Piece {
  std::string_view bytes;
  bool text;  // false: an escape sequence or a line break, kept as is and invisible to matching
};

std::vector<std::string> redactPieces(const std::vector<Piece>& pieces,
                                      const std::vector<std::string>& needles) {
  // Matches the needles in the text of all pieces joined, then rewrites each piece: the first
  // byte of a match becomes `<redacted>`, its other bytes vanish, non-text pieces stay.
  std::string joined;
  for (const auto& piece : pieces) {
    if (piece.text) joined.append(piece.bytes);
  }
  std::vector<char> covered(joined.size(), 0), starts(joined.size(), 0);
  bool any = false;
  for (const auto& needle : needles) {
    if (needle.empty()) continue;
    size_t from = 0;
    while (true) {
      size_t at = joined.find(needle, from);
      if (at == std::string::npos) break;
      bool free = std::none_of(covered.begin() + at, covered.begin() + at + needle.size(),
                               [](char c) { return c != 0; });
      if (!free) {
        from = at + 1;
        continue;
      }
      std::fill(covered.begin() + at, covered.begin() + at + needle.size(), 1);
      starts[at] = 1;
      any = true;
      from = at + needle.size();
    }
  }
  std::vector<std::string> out;
  out.reserve(pieces.size());
  size_t position = 0;
  for (const auto& piece : pieces) {
    if (!piece.text || !any) {
      out.emplace_back(piece.bytes);
      if (piece.text) position += piece.bytes.size();
      continue;
    }
    std::string rewritten;
    rewritten.reserve(piece.bytes.size());
    for (char c : piece.bytes) {
      if (starts[position]) {
        rewritten += REDACTED;
      } else if (!covered[position]) {
        rewritten += c;
      }
      ++position;
    }
    out.push_back(std::move(rewritten));
  }
  return out;
}

size_t escapeLength(std::string_view text, size_t at) {
  // Length of the escape sequence starting with ESC at `at`: CSI (ESC [ params intermediates
  // final) or a two-byte ESC x. The serializer writes nothing else.
  if (at + 1 >= text.size()) return text.size() - at;
  if (text[at + 1] != '[') return 2;
  size_t i = at + 2;
  while (i < text.size() && static_cast<unsigned char>(text[i]) >= 0x20 &&
         static_cast<unsigned char>(text[i]) <= 0x3F) {
    ++i;
  }
  if (i < text.size()) ++i;  // the final byte
  return i - at;
}

std::vector<std::string> secretNeedles(const NormaliseContext& context) {
  // A3: the secret values and sensitive echoes, longest first, as the normaliser orders them.
  std::vector<std::string> needles;
  for (const auto& secret : context.secrets) {
    if (!secret.empty()) needles.push_back(secret);
  }
  for (const auto& input : context.sensitiveInputs) {
    if (auto echo = sensitiveEcho(input)) needles.push_back(*echo);
  }
  std::stable_sort(needles.begin(), needles.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return needles;
}

struct OpenValue {
  size_t start;  // raw stream offset of a whole secret occurrence
  size_t end;
  size_t needle;
};

std::vector<OpenValue> secretOccurrences(const PtyRecord& pty,
                                         const std::vector<std::string>& needles) {
  if (needles.empty()) return {};
  std::string raw;
  for (const auto& chunk : pty.output)
    raw += chunk.data;
  std::vector<OpenValue> list;
  for (size_t n = 0; n < needles.size(); ++n) {
    for (size_t at = raw.find(needles[n]); at != std::string::npos;
         at = raw.find(needles[n], at + 1)) {
      list.push_back({at, at + needles[n].size(), n});
    }
  }
  return list;
}

}  // namespace

namespace {

// Nothing to look for (most captures declare no secret): the text stays as it is, without the
// work of splitting it into pieces and joining them again.
bool nothingToRedact(const std::vector<std::string>& needles) {
  return std::all_of(needles.begin(), needles.end(),
                     [](const std::string& needle) { return needle.empty(); });
}

}  // namespace

std::vector<std::string> redactAcrossLines(const std::vector<std::string>& lines,
                                           const std::vector<std::string>& needles) {
  if (nothingToRedact(needles)) return lines;
  std::vector<Piece> pieces;
  pieces.reserve(lines.size());
  for (const auto& line : lines)
    pieces.push_back({line, true});
  return redactPieces(pieces, needles);
}

std::string redactSerializedState(const std::string& state,
                                  const std::vector<std::string>& needles) {
  if (nothingToRedact(needles)) return state;
  std::vector<Piece> pieces;
  std::string_view text(state);
  size_t runStart = 0;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c != '\x1b' && c != '\r' && c != '\n') {
      ++i;
      continue;
    }
    if (i > runStart) pieces.push_back({text.substr(runStart, i - runStart), true});
    size_t length = c == '\x1b' ? escapeLength(text, i) : 1;
    pieces.push_back({text.substr(i, length), false});
    i += length;
    runStart = i;
  }
  if (runStart < text.size()) pieces.push_back({text.substr(runStart), true});
  std::string out;
  for (auto& piece : redactPieces(pieces, needles))
    out += piece;
  return out;
}

RenderedAssembly assembleRenderedFrames(PtyRecord& pty,
                                        const std::function<int64_t(uint64_t)>& bucketedMs,
                                        const NormaliseContext& terminalContext, uint64_t maxFrames,
                                        uint64_t maxBytes) {
  Normaliser normalise(terminalContext);
  std::vector<std::string> needles = secretNeedles(terminalContext);
  std::vector<OpenValue> occurrences = secretOccurrences(pty, needles);
  uint64_t outputBytes = 0;
  for (const auto& chunk : pty.output)
    outputBytes += chunk.data.size();

  RenderedAssembly result;
  RenderedFrameBudget budget(maxFrames, maxBytes);
  RenderedUnpacker unpacker;  // PtyLink held the frames packed (rendered-pack.h)
  for (auto& in : pty.rendered) {
    unpacker.unpack(in);
    // A value the reads split is partly on this screen: its written prefix is redacted too.
    std::vector<std::string> frameNeedles = needles;
    size_t at = static_cast<size_t>(std::min(in.bytesBefore, outputBytes));
    for (const auto& open : occurrences) {
      if (open.start < at && at < open.end) {
        frameNeedles.push_back(needles[open.needle].substr(0, at - open.start));
      }
    }
    std::stable_sort(
        frameNeedles.begin(), frameNeedles.end(),
        [](const std::string& a, const std::string& b) { return a.size() > b.size(); });

    RenderedFrame frame;
    frame.atMs = bucketedMs(in.atNs);
    frame.columns = in.columns;
    frame.rows = in.rows;
    frame.cursorX = in.cursorX;
    frame.cursorY = in.cursorY;
    frame.activeBuffer = in.alternate ? ActiveBuffer::ALTERNATE : ActiveBuffer::NORMAL;
    frame.lines = redactAcrossLines(in.lines, frameNeedles);
    for (auto& line : frame.lines)
      line = normalise(line);
    frame.serializedState = normalise(redactSerializedState(in.serializedState, frameNeedles));
    std::vector<std::string>().swap(in.lines);  // released now, not when the list goes
    std::string().swap(in.serializedState);

    // B §6.11: the budget counts the frames as recorded (normalised).
    uint64_t cost = frame.serializedState.size();
    for (const auto& line : frame.lines)
      cost += line.size();
    auto admission = budget.admit(cost);
    if (!admission.accepted) {
      result.truncated = true;
      continue;
    }
    result.frames.resize(result.frames.size() - admission.evict);
    frame.sequence = static_cast<int64_t>(result.frames.size());
    result.frames.push_back(std::move(frame));
  }
  // B §4.7: sorted by (at_ms, capture order), then renumbered.
  std::stable_sort(result.frames.begin(), result.frames.end(),
                   [](const RenderedFrame& a, const RenderedFrame& b) { return a.atMs < b.atMs; });
  for (size_t i = 0; i < result.frames.size(); ++i)
    result.frames[i].sequence = static_cast<int64_t>(i);
  return result;
}

InteractionEvent autoReplyEvent(const PtyAutoReply& reply, int64_t atMs,
                                const Normaliser& inputText) {
  InteractionEvent event;
  event.scheduledAtMs = atMs;
  event.dispatchedAtMs = atMs;
  event.type = InteractionType::INPUT;
  event.data = "<auto-reply:" + reply.query + ">" + inputText(reply.reply);
  event.outcome = InteractionOutcome::DISPATCHED;
  event.automatic = true;
  return event;
}

}  // namespace rea::supervisor
