// Baseline comparison (SPEC B §9.3–§9.4): the observation lists exactly as REA builds them,
// every timestamp and every per-read frame being content.

#include <algorithm>

#include "evidence/compare-internal.h"

namespace rea::evidence::_ {
namespace {

using List = std::vector<Json>;

Json tagged(const char* kind, const Json& frame) {
  // `{kind, ...frame}`: the tag first, then the frame's own members in their order.
  Json value = Json::object();
  value["kind"] = kind;
  if (frame.is_object()) {
    for (auto it = frame.begin(); it != frame.end(); ++it) {
      if (it.key() != "kind") value[it.key()] = it.value();
    }
  }
  return value;
}

double sortNumber(const Json& value) {
  // REA sorts with `a.at_ms - b.at_ms`; validated captures hold integers there.
  return value.is_number() ? value.get<double>() : 0.0;
}

List terminalObservations(const Json& capture) {
  struct Entry {
    double atMs;
    int kind;  // 0 = raw, 1 = rendered: raw first at equal times
    double sequence;
    Json value;
  };
  std::vector<Entry> entries;
  for (const Json& frame : arrayMember(capture, "frames")) {
    entries.push_back({sortNumber(member(frame, "at_ms")), 0, sortNumber(member(frame, "sequence")),
                       tagged("raw", frame)});
  }
  for (const Json& frame : arrayMember(capture, "rendered_frames")) {
    entries.push_back({sortNumber(member(frame, "at_ms")), 1, sortNumber(member(frame, "sequence")),
                       tagged("rendered", frame)});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.atMs != b.atMs) return a.atMs < b.atMs;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.sequence < b.sequence;
  });
  List list;
  list.reserve(entries.size());
  for (Entry& entry : entries)
    list.push_back(std::move(entry.value));
  return list;
}

List copyList(const Json& capture, const char* key) {
  const Json& source = arrayMember(capture, key);
  return List(source.begin(), source.end());
}

List baselineFilesystemList(const Json& capture) {
  List list = copyList(capture, "filesystem_checkpoints");
  list.push_back(finalFilesystemElement(capture));
  return list;
}

List observations(const Json& capture, Dimension dimension) {
  switch (dimension) {
    case Dimension::TERMINAL:
      return terminalObservations(capture);
    case Dimension::INTERACTION:
      return copyList(capture, "interaction_events");
    case Dimension::EXIT:
      return List{exitElement(capture)};
    case Dimension::FILESYSTEM:
      return baselineFilesystemList(capture);
    case Dimension::PROTOCOL:
      return copyList(capture, "protocol_events");
    case Dimension::PROCESS:
      return copyList(capture, "process_samples");
    case Dimension::SHIM:
      return copyList(capture, "shim_events");
  }
  return {};
}

DimensionOutcome compareLists(Dimension dimension, const List& left, const List& right) {
  DimensionOutcome outcome;
  size_t length = std::max(left.size(), right.size());
  bool equal = true;
  for (size_t i = 0; i < length; ++i) {
    Json leftValue = i < left.size() ? left[i] : Json(nullptr);
    Json rightValue = i < right.size() ? right[i] : Json(nullptr);
    if (deepEqual(leftValue, rightValue)) continue;
    equal = false;
    std::optional<int64_t> leftAtMs = elementTime(leftValue);
    std::optional<int64_t> rightAtMs = elementTime(rightValue);
    outcome.candidates.push_back(foundDivergence(dimension, i, leftAtMs, rightAtMs,
                                                 std::move(leftValue), std::move(rightValue)));
    break;
  }
  outcome.contentStatus = classifyCollection(equal, left.empty(), right.empty());
  return outcome;
}

}  // namespace

Json exitElement(const Json& capture) {
  Json value = Json::object();
  const Json& exit = member(capture, "exit");
  if (exit.is_object()) {
    for (auto it = exit.begin(); it != exit.end(); ++it) {
      if (it.key() != "settlement") value[it.key()] = it.value();
    }
  }
  value["settlement"] = member(capture, "settlement");
  return value;
}

Json finalFilesystemElement(const Json& capture) {
  Json value = Json::object();
  value["name"] = "final";
  value["files"] = arrayMember(capture, "files_after");
  value["effects"] = arrayMember(capture, "filesystem_effects");
  return value;
}

Outcomes compareBaselineDimensions(const Json& left, const Json& right) {
  Outcomes outcomes;
  for (size_t i = 0; i < DIMENSION_COUNT; ++i) {
    Dimension dimension = DIMENSIONS[i];
    outcomes[i] =
        compareLists(dimension, observations(left, dimension), observations(right, dimension));
  }
  return outcomes;
}

}  // namespace rea::evidence::_
