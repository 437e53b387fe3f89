// The "First divergence" section of the HTML comparison report: where the two captures first
// differ, each side's value beside the other's, the difference marked.

#include <string>

#include <nlohmann/json.hpp>

#include "evidence/report-html-parts.h"
#include "evidence/utf.h"

namespace rea::evidence::report_html {
namespace {

std::string streamExcerpt(const Json& value, const Json& index) {
  // The excerpt with everything from the first differing byte on marked.
  std::string excerpt = text(member(value, "excerpt"));
  std::optional<int64_t> offset = integer(member(value, "excerpt_offset"));
  std::optional<int64_t> at = integer(index);
  size_t split = excerpt.size();
  if (offset && at && *at >= *offset) {
    split = std::min(excerpt.size(), static_cast<size_t>(*at - *offset));
  }
  // Split at a character boundary: the first differing byte may be inside a character.
  while (split > 0 && split < excerpt.size() &&
         (static_cast<unsigned char>(excerpt[split]) & 0xC0) == 0x80) {
    --split;
  }
  std::string tail = excerpt.substr(split);
  std::string out = visibleControls(excerpt.substr(0, split)) + "<mark class=\"divergence\">";
  out += tail.empty() ? "(end of output)" : visibleControls(tail);
  return out + "</mark>";
}

std::string comparedScreen(const Json& screen, const Json& other) {
  // A screen element of the terminal dimension (compare.h), drawn as a terminal with the rows
  // that differ from the other side's marked.
  if (!screen.is_object()) return "<pre class=\"value\">(no rendered frame at this moment)</pre>";
  std::string out =
      "<div class=\"note\">" +
      html(text(member(screen, "columns")) + "x" + text(member(screen, "rows")) + ", cursor " +
           text(member(screen, "cursor_x")) + "," + text(member(screen, "cursor_y")) + ", " +
           text(member(screen, "active_buffer")) + " buffer") +
      "</div><div class=\"terminal\"><pre>";
  const Json& lines = member(screen, "lines");
  const Json& otherLines = member(other, "lines");
  for (size_t i = 0; lines.is_array() && i < lines.size(); ++i) {
    bool differs = !otherLines.is_array() || i >= otherLines.size() || otherLines[i] != lines[i];
    out += std::string("<span class=\"row") + (differs ? " differs" : "") + "\">" +
           html(text(lines[i])) + "</span>";
  }
  return out + "</pre></div>";
}

std::string dumped(const Json& value) {
  return value.is_null() ? "" : value.dump(2, ' ', false, Json::error_handler_t::replace);
}

// Steps back to the start of a UTF-8 character.
size_t characterStart(const std::string& text, size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
    --at;
  return at;
}

std::string markedDifference(const std::string& mine, const std::string& other) {
  // A long value differs from the other side's in a small part: that part is marked, from the
  // first differing character to the last (the common prefix and suffix stay plain).
  size_t prefix = 0;
  while (prefix < mine.size() && prefix < other.size() && mine[prefix] == other[prefix])
    ++prefix;
  size_t suffix = 0;
  while (suffix < mine.size() - prefix && suffix < other.size() - prefix &&
         mine[mine.size() - 1 - suffix] == other[other.size() - 1 - suffix]) {
    ++suffix;
  }
  if (prefix == mine.size() && prefix == other.size()) return html(mine);
  size_t start = characterStart(mine, prefix);
  size_t end = mine.size() - suffix;
  while (end < mine.size() && (static_cast<unsigned char>(mine[end]) & 0xC0) == 0x80)
    ++end;
  return html(mine.substr(0, start)) + "<mark class=\"divergence\">" +
         (end > start ? html(mine.substr(start, end - start)) : "(nothing here)") + "</mark>" +
         html(mine.substr(end));
}

std::string observationValue(const Json& value, const Json& other, const Json& index) {
  if (value.is_null()) return "<pre class=\"value\">(no element)</pre>";
  std::string kind = text(member(value, "kind"));
  if (kind == "stream") return "<pre>" + streamExcerpt(value, index) + "</pre>";
  if (kind == "screen") {
    return comparedScreen(member(value, "screen"), member(other, "screen"));
  }
  return "<pre class=\"value\">" + markedDifference(dumped(value), dumped(other)) + "</pre>";
}

std::string observationName(const Json& first) {
  // What `index` counts, and the element's own identity when it has one.
  std::string dimension = text(member(first, "dimension"));
  std::string index = text(member(first, "index"));
  const Json& left = member(first, "left");
  const Json& right = member(first, "right");
  const Json& sample = left.is_null() ? right : left;
  std::string kind = text(member(sample, "kind"));
  if (kind == "stream") return "output stream, byte offset " + index;
  if (kind == "screen") {
    return "screen at moment " + index + " (" + text(member(sample, "moment")) + ")";
  }
  // In words ("shim call 1 (sequence 0)"), counted from 1 as a person counts.
  std::optional<int64_t> position = integer(member(first, "index"));
  std::string out = dimension + " record " + (position ? std::to_string(*position + 1) : index);
  for (const char* key : {"sequence", "name", "path"}) {
    const Json& id = member(sample, key);
    if (!id.is_null()) out += ", " + std::string(key) + " " + text(id);
  }
  return out;
}

std::string atMsText(const Json& value) {
  std::optional<int64_t> ms = integer(value);
  return ms ? std::to_string(*ms) + " ms" : "no time";
}

}  // namespace

void writeFirstDivergence(std::ostringstream& out, const Json& comparison) {
  const Json& first = member(comparison, "first_divergence");
  std::string status = text(member(first, "status"));
  std::string kind = status == "found" || status == "unknown" ? status : "none";
  out << "<section id=\"first-divergence\" class=\"divergence-" << kind
      << "\"><h2>First divergence</h2>\n";
  if (status != "found") {
    out << "<p>status <span class=\"status " << statusClass(member(first, "status")) << "\">"
        << html(status) << "</span>";
    if (member(first, "reason").is_string()) out << ": " << html(text(member(first, "reason")));
    out << "</p>\n</section>\n";
    return;
  }
  out << "<p>dimension <strong class=\"divergence-dimension\">"
      << html(text(member(first, "dimension"))) << "</strong>, " << html(observationName(first))
      << "</p>\n";
  if (member(first, "timing") == true) {
    out << "<p class=\"timing-divergence\">timing divergence: the contents match, but the times "
           "differ by <strong>"
        << html(text(member(first, "deviation_ms"))) << " ms</strong> (tolerance "
        << html(text(member(member(comparison, "timing"), "tolerance_ms"))) << " ms)</p>\n";
  }
  out << "<table class=\"divergence-values\"><thead><tr><th></th><th>left</th><th>right</th>"
         "</tr></thead><tbody>\n<tr><th>at</th><td>"
      << html(atMsText(member(first, "left_at_ms"))) << "</td><td>"
      << html(atMsText(member(first, "right_at_ms"))) << "</td></tr>\n<tr><th>value</th><td>"
      << observationValue(member(first, "left"), member(first, "right"), member(first, "index"))
      << "</td><td>"
      << observationValue(member(first, "right"), member(first, "left"), member(first, "index"))
      << "</td></tr>\n</tbody></table>\n</section>\n";
}

}  // namespace rea::evidence::report_html
