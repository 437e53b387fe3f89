// renderReportHtml and escapeHtml (report-html.h): the page with its header, dimensions, screens,
// timing chart and limitations; the first divergence is drawn by report-html-divergence.c++ and
// the pieces both use are in report-html-parts.h.

#include "evidence/report-html.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "evidence/compare-status.h"
#include "evidence/report-html-parts.h"
#include "evidence/report-screen.h"
#include "evidence/utf.h"

namespace rea::evidence {
namespace report_html {
namespace {

const std::array<const char*, 7> DIMENSIONS = {"terminal", "interaction", "exit", "filesystem",
                                               "protocol", "process",     "shim"};
// SPEC B §9.3, in its fixed order.

const char STYLE[] = R"(
body { font-family: sans-serif; margin: 24px; color: #1d232a; background: #fff; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 17px; margin: 24px 0 8px; border-bottom: 1px solid #d0d7de; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f3f5f7; }
code, pre { font-family: monospace; font-size: 13px; }
pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.status { font-weight: bold; }
.status-unchanged .status, span.status-unchanged { color: #116329; }
.status-changed .status, .status-added .status, .status-removed .status,
span.status-changed, span.status-added, span.status-removed { color: #b3261e; }
.status-unknown .status, span.status-unknown { color: #8a5a00; }
.status-truncated .status, span.status-truncated { color: #6f42c1; }
.status-contradiction .status, span.status-contradiction { color: #7d0000; }
.status-other .status, span.status-other { color: #57606a; }
tr.status-changed, tr.status-added, tr.status-removed { background: #fff1f0; }
tr.status-unknown { background: #fff8e5; }
tr.status-truncated { background: #f5f0ff; }
tr.first-divergence { outline: 3px solid #d4a000; }
tr.first-divergence td:first-child::after { content: "  \25C0  first divergence"; color: #8a5a00;
  font-weight: normal; }
#first-divergence { border: 3px solid #d4a000; background: #fffbea; padding: 8px 12px; }
#first-divergence.divergence-none { border-color: #2da44e; background: #f0fff4; }
pre.value { background: #ffe3e0; border-left: 3px solid #b3261e; padding: 4px 6px; }
.divergence-values td { min-width: 360px; }
mark.divergence { background: #ffb3ad; color: #000; outline: 1px solid #b3261e; }
.ctl { color: #8250df; }
.screens { display: flex; gap: 16px; align-items: flex-start; }
figure.screen { flex: 1 1 0; min-width: 0; margin: 0; }
figure.screen figcaption { font-size: 13px; margin-bottom: 4px; }
.terminal { background: #0d1117; color: #e6edf3; padding: 8px; border-radius: 4px;
  overflow-x: auto; }
.terminal pre { white-space: pre; }
.terminal .row { display: block; min-height: 1.2em; padding-left: 6px; }
.note { font-size: 13px; color: #57606a; }
.terminal .row.differs { background: #3a1d1d; box-shadow: inset 3px 0 0 #f85149; }
.sides td { max-width: 460px; overflow-wrap: anywhere; }
svg text { font-family: sans-serif; font-size: 12px; fill: #1d232a; }
rect.bar.within { fill: #2da44e; }
rect.bar.beyond { fill: #cf222e; }
line.tolerance { stroke: #8a5a00; stroke-width: 2; stroke-dasharray: 5 3; }
)";

// ---- header ----------------------------------------------------------------------------------

std::string commandLine(const Capture& capture) {
  const Json& scenario = *capture.manifest.scenario;
  std::string line = text(member(scenario, "executable"));
  const Json& arguments = member(scenario, "arguments");
  if (arguments.is_array()) {
    for (const Json& argument : arguments)
      line += " " + text(argument);
  }
  return line;
}

std::string exitText(const Capture& capture) {
  std::string out = toString(capture.exit.reason);
  if (capture.exit.code) out += ", code " + std::to_string(*capture.exit.code);
  if (capture.exit.signal) out += ", signal " + std::to_string(*capture.exit.signal);
  return out;
}

void writeSides(std::ostringstream& out, const ReportSide& left, const ReportSide& right) {
  out << "<table class=\"sides\"><thead><tr><th></th><th>left</th><th>right</th></tr></thead>"
         "<tbody>\n";
  auto row = [&](const char* name, const std::string& l, const std::string& r) {
    out << "<tr><th>" << name << "</th><td><code>" << html(l) << "</code></td><td><code>" << html(r)
        << "</code></td></tr>\n";
  };
  row("file", left.label, right.label);
  row("evidence id", left.evidenceId, right.evidenceId);
  row("command", commandLine(left.capture), commandLine(right.capture));
  row("started at", left.capture.manifest.startedAt, right.capture.manifest.startedAt);
  row("exit", exitText(left.capture), exitText(right.capture));
  row("raw frames", std::to_string(left.capture.frames.size()),
      std::to_string(right.capture.frames.size()));
  row("rendered frames", std::to_string(left.capture.renderedFrames.size()),
      std::to_string(right.capture.renderedFrames.size()));
  out << "</tbody></table>\n";
}

// ---- dimensions ------------------------------------------------------------------------------

std::string deviationText(const Json& timing, const char* dimension) {
  if (!timing.is_object()) return "";
  const Json& entry = member(timing, dimension);
  std::optional<int64_t> deviation = integer(member(entry, "max_deviation_ms"));
  if (!deviation) return "no matching times";
  std::string out = std::to_string(*deviation) + " ms";
  if (member(entry, "exceeds_tolerance") == true) out += " (beyond tolerance)";
  return out;
}

void writeDimensions(std::ostringstream& out, const Json& comparison) {
  const Json& timing = member(comparison, "timing");
  const Json& first = member(comparison, "first_divergence");
  std::string firstDimension =
      member(first, "status") == "found" ? text(member(first, "dimension")) : "";
  out << "<table class=\"dimensions\" id=\"dimensions\"><thead><tr><th>dimension</th>"
         "<th>status</th>";
  if (timing.is_object()) out << "<th>largest timing deviation</th>";
  out << "</tr></thead><tbody>\n";
  for (const char* dimension : DIMENSIONS) {
    const Json& status = member(comparison, dimension);
    std::string classes = "dimension " + statusClass(status);
    if (firstDimension == dimension) classes += " first-divergence";
    out << "<tr class=\"" << classes << "\" id=\"dimension-" << dimension << "\" data-dimension=\""
        << dimension << "\" data-status=\"" << html(text(status)) << "\"><td>" << dimension
        << "</td><td class=\"status\">" << html(text(status)) << "</td>";
    if (timing.is_object()) out << "<td>" << html(deviationText(timing, dimension)) << "</td>";
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

// ---- screens ---------------------------------------------------------------------------------

std::string screenCaption(const char* side, const ReportScreen& screen,
                          std::optional<int64_t> momentMs) {
  std::string moment =
      momentMs ? "at or before " + std::to_string(*momentMs) + " ms" : "at the end of the capture";
  std::string out = std::string(side) + ": ";
  if (screen.source == ReportScreen::Source::RENDERED) {
    const RenderedFrame& frame = *screen.frame;
    out += "rendered frame " + std::to_string(frame.sequence) + " at " +
           std::to_string(frame.atMs) + " ms (last rendered frame " + moment + "), " +
           std::to_string(frame.columns) + "x" + std::to_string(frame.rows) + ", cursor " +
           std::to_string(frame.cursorX) + "," + std::to_string(frame.cursorY) + ", " +
           toString(frame.activeBuffer) + " buffer";
  } else {
    out += "no rendered frame " + moment + "; raw output of " +
           std::to_string(screen.rawFrameCount) +
           " frame(s) with control sequences stripped, shown as plain text";
    if (screen.rawLinesDropped > 0) {
      out += " (last " + std::to_string(screen.lines.size()) + " lines)";
    }
  }
  return out;
}

void writeScreen(std::ostringstream& out, const std::string& id, const char* side,
                 const ReportScreen& screen, const ReportScreen& other,
                 std::optional<int64_t> momentMs) {
  const char* source = screen.source == ReportScreen::Source::RENDERED ? "rendered" : "raw";
  out << "<figure class=\"screen\" id=\"" << id << "\" data-source=\"" << source
      << "\"><figcaption>" << html(screenCaption(side, screen, momentMs))
      << "</figcaption><div class=\"terminal\"><pre>";
  for (size_t i = 0; i < screen.lines.size(); ++i) {
    bool differs = i >= other.lines.size() || other.lines[i] != screen.lines[i];
    out << "<span class=\"row" << (differs ? " differs" : "") << "\">" << html(screen.lines[i])
        << "</span>";
  }
  out << "</pre></div></figure>\n";
}

void writeScreens(std::ostringstream& out, const ReportSide& left, const ReportSide& right,
                  const Json& comparison) {
  const Json& first = member(comparison, "first_divergence");
  std::optional<int64_t> leftMs, rightMs;
  if (member(first, "status") == "found") {
    leftMs = integer(member(first, "left_at_ms"));
    rightMs = integer(member(first, "right_at_ms"));
  }
  ReportScreen leftScreen = screenAt(left.capture, leftMs);
  ReportScreen rightScreen = screenAt(right.capture, rightMs);
  out << "<section id=\"screens\"><h2>Screens at the first divergence</h2>\n"
         "<p class=\"note\">A row that differs from the other side's row at the same position "
         "is marked on its left edge.</p>\n<div class=\"screens\">\n";
  writeScreen(out, "screen-left", "left", leftScreen, rightScreen, leftMs);
  writeScreen(out, "screen-right", "right", rightScreen, leftScreen, rightMs);
  out << "</div>\n</section>\n";

  // When the first divergence is elsewhere (a process, a file) but the terminal differs too,
  // the screens above may be identical: the real screen difference is shown at the end.
  auto terminal = parseCompareStatus(text(member(comparison, "terminal")));
  bool terminalDiffers = terminal && differs(*terminal);
  if (!terminalDiffers || text(member(first, "dimension")) == "terminal") return;
  ReportScreen leftEnd = screenAt(left.capture, std::nullopt);
  ReportScreen rightEnd = screenAt(right.capture, std::nullopt);
  out << "<section id=\"terminal-screens\"><h2>Screens where the terminal differs</h2>\n"
         "<p class=\"note\">The terminal differs too; these are the last screens of each "
         "capture.</p>\n<div class=\"screens\">\n";
  writeScreen(out, "terminal-screen-left", "left", leftEnd, rightEnd, std::nullopt);
  writeScreen(out, "terminal-screen-right", "right", rightEnd, leftEnd, std::nullopt);
  out << "</div>\n</section>\n";
}

// ---- timing chart ----------------------------------------------------------------------------

constexpr double CHART_WIDTH = 720;
constexpr double LABEL_WIDTH = 110;
constexpr double BAR_AREA = 480;
constexpr double ROW_HEIGHT = 26;
constexpr double BAR_HEIGHT = 16;
constexpr double TOP = 24;

void writeTiming(std::ostringstream& out, const Json& comparison) {
  out << "<section id=\"timing\"><h2>Timing deviations</h2>\n";
  const Json& timing = member(comparison, "timing");
  std::optional<int64_t> tolerance = integer(member(timing, "tolerance_ms"));
  if (!timing.is_object() || !tolerance) {
    out << "<p>No timing: compared with baseline semantics, where every time is part of the "
           "content.</p>\n</section>\n";
    return;
  }
  int64_t largest = 0;
  for (const char* dimension : DIMENSIONS) {
    if (auto d = integer(member(member(timing, dimension), "max_deviation_ms"))) {
      largest = std::max(largest, *d);
    }
  }
  // The scale leaves room right of the tolerance line, so "within" and "beyond" read at a glance.
  double scale = static_cast<double>(std::max<int64_t>({2 * *tolerance, largest, 1}));
  double height = TOP + ROW_HEIGHT * static_cast<double>(DIMENSIONS.size()) + 8;
  out << "<p>Per dimension, the largest difference between the times of matching observations, "
         "against the tolerance of "
      << *tolerance << " ms.</p>\n";
  out << "<svg id=\"timing-chart\" width=\"" << CHART_WIDTH << "\" height=\"" << number(height)
      << "\" viewBox=\"0 0 " << CHART_WIDTH << " " << number(height)
      << "\" role=\"img\" aria-label=\"timing deviations\">\n";
  for (size_t i = 0; i < DIMENSIONS.size(); ++i) {
    const char* dimension = DIMENSIONS[i];
    const Json& entry = member(timing, dimension);
    double y = TOP + ROW_HEIGHT * static_cast<double>(i);
    out << "<text x=\"0\" y=\"" << number(y + BAR_HEIGHT - 3) << "\">" << dimension << "</text>";
    std::optional<int64_t> deviation = integer(member(entry, "max_deviation_ms"));
    if (deviation) {
      double width = static_cast<double>(*deviation) / scale * BAR_AREA;
      const char* side = member(entry, "exceeds_tolerance") == true ? "beyond" : "within";
      out << "<rect class=\"bar " << side << "\" data-dimension=\"" << dimension
          << "\" data-deviation-ms=\"" << *deviation << "\" x=\"" << LABEL_WIDTH << "\" y=\""
          << number(y) << "\" width=\"" << number(width) << "\" height=\"" << BAR_HEIGHT << "\"/>";
      out << "<text x=\"" << number(LABEL_WIDTH + width + 6) << "\" y=\""
          << number(y + BAR_HEIGHT - 3) << "\">" << *deviation << " ms</text>\n";
    } else {
      out << "<text x=\"" << LABEL_WIDTH << "\" y=\"" << number(y + BAR_HEIGHT - 3)
          << "\" fill-opacity=\"0.6\">no matching times</text>\n";
    }
  }
  double x = LABEL_WIDTH + static_cast<double>(*tolerance) / scale * BAR_AREA;
  out << "<line class=\"tolerance\" x1=\"" << number(x) << "\" y1=\"" << number(TOP - 6)
      << "\" x2=\"" << number(x) << "\" y2=\"" << number(height - 4) << "\"/>"
      << "<text x=\"" << number(x + 4) << "\" y=\"12\">tolerance " << *tolerance
      << " ms</text>\n</svg>\n</section>\n";
}

void writeLimitations(std::ostringstream& out, const Json& comparison) {
  const Json& limitations = member(comparison, "limitations");
  out << "<section id=\"limitations\"><h2>Limitations</h2>\n";
  if (!limitations.is_array() || limitations.empty()) {
    out << "<p>None.</p>\n</section>\n";
    return;
  }
  // Both captures usually share their limitations: each sentence is listed once.
  out << "<ul>\n";
  std::vector<std::string> seen;
  for (const Json& limitation : limitations) {
    std::string sentence = text(limitation);
    if (std::find(seen.begin(), seen.end(), sentence) != seen.end()) continue;
    seen.push_back(sentence);
    out << "<li>" << html(sentence) << "</li>\n";
  }
  out << "</ul>\n</section>\n";
}

}  // namespace
}  // namespace report_html

std::string escapeHtml(const std::string& value) {
  std::string clean = sanitizeUtf8(value);
  std::string out;
  out.reserve(clean.size());
  for (char c : clean) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string renderReportHtml(const ReportSide& left, const ReportSide& right,
                             const Json& comparison) {
  using namespace report_html;
  const Json& status = member(comparison, "status");
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<title>rea report: "
      << html(text(status)) << "</title>\n<style>" << STYLE << "</style>\n</head>\n<body>\n"
      << "<h1>Comparison of two captures</h1>\n<p id=\"overall-status\" class=\""
      << statusClass(status) << "\">overall status <span class=\"status " << statusClass(status)
      << "\">" << html(text(status)) << "</span>"
      << (member(comparison, "timing").is_object()
              ? " (contents compared; timing reported separately, against a tolerance)"
              : " (baseline semantics: every time is part of the content)")
      << "</p>\n";
  writeSides(out, left, right);
  out << "<section id=\"dimension-statuses\"><h2>Dimensions</h2>\n";
  writeDimensions(out, comparison);
  out << "</section>\n";
  writeFirstDivergence(out, comparison);
  writeScreens(out, left, right, comparison);
  writeTiming(out, comparison);
  writeLimitations(out, comparison);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace rea::evidence
