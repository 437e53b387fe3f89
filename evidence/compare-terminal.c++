// Default-mode terminal dimension (SPEC A7): the concatenated normalised output stream, whose
// read boundaries do not matter, and the rendered screen at each dispatched interaction, each
// checkpoint both captures took (one only one has is the filesystem's difference) and the end.
// Rules and JSON shapes are documented in evidence/compare.h.

#include <algorithm>
#include <set>
#include <string_view>

#include "evidence/compare-internal.h"
#include "evidence/pid-placeholder.h"
#include "evidence/utf.h"

namespace rea::evidence::_ {
namespace {

constexpr size_t EXCERPT_BYTES = 24;

struct Stream {
  std::string bytes;
  std::vector<size_t> starts;                 // offset of each non-empty frame's first byte
  std::vector<std::optional<int64_t>> times;  // that frame's at_ms
};

Stream buildStream(const Json& capture) {
  Stream stream;
  size_t total = 0;
  for (const Json& frame : arrayMember(capture, "frames")) {
    const Json& data = member(frame, "data");
    if (data.is_string()) total += data.get_ref<const std::string&>().size();
  }
  stream.bytes.reserve(total);  // one allocation, no copies while the stream grows
  for (const Json& frame : arrayMember(capture, "frames")) {
    const Json& data = member(frame, "data");
    if (!data.is_string() || data.get_ref<const std::string&>().empty()) continue;
    stream.starts.push_back(stream.bytes.size());
    stream.times.push_back(elementTime(frame));
    stream.bytes += data.get_ref<const std::string&>();
  }
  return stream;
}

std::optional<int64_t> timeAt(const Stream& stream, size_t offset) {
  if (offset >= stream.bytes.size()) return std::nullopt;
  size_t segment = std::upper_bound(stream.starts.begin(), stream.starts.end(), offset) -
                   stream.starts.begin() - 1;
  return stream.times[segment];
}

bool isContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

Json excerpt(const std::string& bytes, size_t offset) {
  size_t start = offset > EXCERPT_BYTES ? offset - EXCERPT_BYTES : 0;
  while (start < offset && start < bytes.size() && isContinuationByte(bytes[start]))
    ++start;
  size_t end = std::min(bytes.size(), offset + EXCERPT_BYTES);
  std::string_view piece;
  if (start < end) piece = std::string_view(bytes).substr(start, end - start);
  piece = piece.substr(0, completeUtf8Prefix(piece));
  Json value = Json::object();
  value["kind"] = "stream";
  value["excerpt_offset"] = start;
  value["excerpt"] = sanitizeUtf8(piece);
  return value;
}

Json screenOf(const Json* frame) {
  if (frame == nullptr) return nullptr;
  Json screen = Json::object();
  for (const char* key : {"columns", "rows", "cursor_x", "cursor_y", "active_buffer", "lines"}) {
    screen[key] = member(*frame, key);
  }
  return screen;
}

class Screens {
 public:
  explicit Screens(const Json& capture) : frames(arrayMember(capture, "rendered_frames")) {
    // Rendered frames are validated non-decreasing in at_ms; a frame without a usable time
    // is never current at a moment (it can still be the last one).
    for (const Json& frame : frames) {
      std::optional<int64_t> time = elementTime(frame);
      times.push_back(time ? *time : INT64_MAX);
    }
  }

  const Json* before(int64_t moment, bool inclusive) const {
    auto it = inclusive ? std::upper_bound(times.begin(), times.end(), moment)
                        : std::lower_bound(times.begin(), times.end(), moment);
    if (it == times.begin()) return nullptr;
    return &frames[static_cast<size_t>(it - times.begin() - 1)];
  }

  const Json* last() const { return frames.empty() ? nullptr : &frames.back(); }

 private:
  const Json& frames;
  std::vector<int64_t> times;
};

// The names of the checkpoints both captures took: a checkpoint only one of them has is a
// filesystem difference (it names a moment, it is not something the terminal showed), so its
// screen is not a terminal observation.
std::set<std::string> sharedCheckpoints(const Json& left, const Json& right) {
  std::set<std::string> leftNames, shared;
  for (const Json& checkpoint : arrayMember(left, "filesystem_checkpoints")) {
    const Json& name = member(checkpoint, "name");
    if (name.is_string()) leftNames.insert(name.get<std::string>());
  }
  for (const Json& checkpoint : arrayMember(right, "filesystem_checkpoints")) {
    const Json& name = member(checkpoint, "name");
    if (name.is_string() && leftNames.count(name.get<std::string>())) {
      shared.insert(name.get<std::string>());
    }
  }
  return shared;
}

std::vector<Observation> screenObservations(const Json& capture,
                                            const std::set<std::string>& checkpoints) {
  Screens screens(capture);
  std::vector<Observation> list;
  for (const Json& event : arrayMember(capture, "interaction_events")) {
    if (member(event, "outcome") != "dispatched") continue;
    std::optional<int64_t> moment = elementTime(event, "dispatched_at_ms");
    Json element = Json::object();
    element["kind"] = "screen";
    element["moment"] = "interaction";
    element["interaction_sequence"] = member(event, "sequence");
    if (event.contains("when")) {
      // A reactive event fired because its condition held on what came before it, which the
      // trigger says; the screen "just before" a dispatch that often shares the condition's
      // time bucket is not knowable from bucketed times (docs/scenario-events.md).
      element["when"] = event["when"];
    } else {
      element["screen"] = screenOf(moment ? screens.before(*moment, false) : nullptr);
    }
    list.push_back(observe(element, moment));
  }
  for (const Json& checkpoint : arrayMember(capture, "filesystem_checkpoints")) {
    const Json& name = member(checkpoint, "name");
    if (name == "before" || !name.is_string() || !checkpoints.count(name.get<std::string>())) {
      continue;
    }
    std::optional<int64_t> moment = elementTime(checkpoint);
    Json element = Json::object();
    element["kind"] = "screen";
    element["moment"] = "checkpoint";
    element["checkpoint"] = member(checkpoint, "name");
    element["screen"] = screenOf(moment ? screens.before(*moment, true) : nullptr);
    list.push_back(observe(element, moment));
  }
  Json element = Json::object();
  element["kind"] = "screen";
  element["moment"] = "end";
  element["screen"] = screenOf(screens.last());
  list.push_back(observe(element, screens.last() ? elementTime(*screens.last()) : std::nullopt));
  return list;
}

}  // namespace

DimensionOutcome compareTerminalContent(const Json& left, const Json& right, int64_t toleranceMs) {
  DimensionOutcome outcome;
  Stream leftStream = buildStream(left);
  Stream rightStream = buildStream(right);

  const std::string& a = leftStream.bytes;
  const std::string& b = rightStream.bytes;
  // A15: `<pid>` on one side matches any number on the other, so the two streams' offsets can
  // drift apart; `index` is the left offset, each excerpt is taken at its own side's offset.
  PidAlignment alignment = alignUpToPids(a, b);
  size_t matched = alignment.left;
  bool streamEqual = alignment.equal;
  if (!streamEqual) {
    outcome.candidates.push_back(foundDivergence(
        Dimension::TERMINAL, matched, timeAt(leftStream, matched),
        timeAt(rightStream, alignment.right), excerpt(a, matched), excerpt(b, alignment.right)));
  }

  std::set<std::string> checkpoints = sharedCheckpoints(left, right);
  DimensionOutcome screens =
      compareObservations(Dimension::TERMINAL, screenObservations(left, checkpoints),
                          screenObservations(right, checkpoints), toleranceMs);
  for (Candidate& candidate : screens.candidates)
    outcome.candidates.push_back(candidate);

  bool leftEmpty =
      arrayMember(left, "frames").empty() && arrayMember(left, "rendered_frames").empty();
  bool rightEmpty =
      arrayMember(right, "frames").empty() && arrayMember(right, "rendered_frames").empty();
  outcome.contentStatus = classifyCollection(
      streamEqual && screens.contentStatus == CompareStatus::UNCHANGED, leftEmpty, rightEmpty);

  // Timing: byte k of one stream against its counterpart in the other (byte k itself unless a
  // `<pid>` matched a number before it), over the matched prefix, one overlap of two frames at
  // a time. Positions are left offsets; the right frames' boundaries are mapped onto them.
  size_t i = 0, j = 0, position = 0;
  std::optional<Candidate> late;
  while (position < matched) {
    size_t leftEnd = i + 1 < leftStream.starts.size() ? leftStream.starts[i + 1] : a.size();
    size_t rightEnd = alignment.leftOffsetOf(
        j + 1 < rightStream.starts.size() ? rightStream.starts[j + 1] : b.size());
    size_t next = std::min({leftEnd, rightEnd, matched});
    std::optional<int64_t> leftTime = leftStream.times[i];
    std::optional<int64_t> rightTime = rightStream.times[j];
    if (leftTime && rightTime && next > position) {
      int64_t deviation = *leftTime > *rightTime ? *leftTime - *rightTime : *rightTime - *leftTime;
      if (!outcome.maxDeviationMs || deviation > *outcome.maxDeviationMs) {
        outcome.maxDeviationMs = deviation;
      }
      if (deviation > toleranceMs && !late) {
        late = timingDivergence(Dimension::TERMINAL, position, leftTime, rightTime,
                                excerpt(a, position), excerpt(b, alignment.rightOffsetOf(position)),
                                deviation);
      }
    }
    position = next;
    if (position == leftEnd) ++i;
    if (position == rightEnd) ++j;
  }
  if (late) {
    outcome.exceedsTolerance = true;
    outcome.candidates.push_back(std::move(*late));
  }
  return outcome;
}

}  // namespace rea::evidence::_
