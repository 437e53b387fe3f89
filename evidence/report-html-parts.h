#pragma once
// The pieces of the HTML comparison report (report-html.h) that more than one of its files use:
// reading the comparison JSON leniently (a report is drawn from whatever the comparison holds,
// never by throwing) and escaping what it shows. Internal to the report-html*.c++ files.

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "evidence/json-member.h"
#include "evidence/json.h"

namespace rea::evidence::report_html {

std::string text(const Json& value);
// A string as is, anything else as JSON (invalid UTF-8 replaced, never thrown).

std::optional<int64_t> integer(const Json& value);

std::string html(const std::string& value);
// escapeHtml (report-html.h).

std::string statusClass(const Json& status);
// The CSS class of a SPEC B §9 status word ("status-changed"), "status-other" for anything else.

std::string number(double value);
// Two decimals, for SVG coordinates.

std::string visibleControls(const std::string& bytes);
// Escaped text with control characters shown as `\r`, `\n`, `\e`, `\xNN`.

void writeFirstDivergence(std::ostringstream& out, const Json& comparison);
// The "First divergence" section (report-html-divergence.c++).

}  // namespace rea::evidence::report_html
