#pragma once
// The comparison report (`rea report`, issue 9): one self-contained HTML page for a comparison
// of two captures. It shows the overall status and each of the seven dimensions of SPEC B §9.3
// with its status word (and, in the default mode of A7, its largest timing deviation), the first
// divergence (B §9.4) with its dimension, index and both values, the two terminal screens at
// that moment side by side (evidence/report-screen.h), the timing deviations as an inline SVG
// bar chart against the tolerance, and the comparison's limitations (each sentence once). Its
// words are the user's: no section numbers of a specification.
//
// The page has no script, no external URL and no resource outside itself: inline CSS, inline
// SVG. Everything taken from the captures or the comparison (terminal text, file names,
// command lines, status words) is HTML-escaped, so a target that prints `<script>` shows that
// text and nothing more. Pure: no clock, no file.
//
// Stable hooks for readers and tests: `#overall-status`; the dimension table rows
// `tr.dimension[data-dimension][data-status]` with classes `status-<word>` (one of unchanged,
// added, removed, changed, truncated, unknown, contradiction; `status-other` for anything else)
// and `first-divergence` on the diverging dimension's row; `#first-divergence` (class
// `divergence-found|divergence-unknown|divergence-none`) with `mark.divergence` from the
// first differing stream byte on, a compared screen drawn as a terminal, any other value as
// indented JSON in `pre.value` with the part that differs from the other side's in
// `mark.divergence`; `#screen-left`, `#screen-right` (`data-source="rendered|raw"`, rows that
// differ from the other side carry class `differs`); when the terminal differs but the first
// divergence is in another dimension, `#terminal-screens` with `#terminal-screen-left` and
// `#terminal-screen-right`, the last screens of each capture, marked the same way; `#timing-chart`
// with one `rect.bar[data-dimension]` per dimension that has a deviation (class `within` or
// `beyond`) and `line.tolerance`.
//
// Errors: none thrown for a capture that passed import and a comparison from compareCaptures();
// missing or ill-typed comparison members are shown as absent.

#include <string>

#include "evidence/capture.h"
#include "evidence/json.h"

namespace rea::evidence {

struct ReportSide {
  std::string label;       // how the reader names this side, e.g. the file given to `rea report`
  std::string evidenceId;  // the capture Evidence's `evidence_id`
  const Capture& capture;  // imported and validated
};

std::string renderReportHtml(const ReportSide& left, const ReportSide& right,
                             const Json& comparison);
// The page for `comparison` = compareCaptures(toJson(left.capture), toJson(right.capture), ...)
// (either mode). The screens are taken at the first divergence's `left_at_ms` / `right_at_ms`
// on each side; at the end of the capture when that time is null or nothing was found.

std::string escapeHtml(const std::string& text);
// `&`, `<`, `>`, `"`, `'` as character references; invalid UTF-8 becomes U+FFFD. Safe both in
// element content and in quoted attribute values.

}  // namespace rea::evidence
