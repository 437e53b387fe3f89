#include "evidence/report-html-parts.h"

#include <array>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "evidence/report-html.h"
#include "evidence/utf.h"

namespace rea::evidence::report_html {
namespace {

const std::array<const char*, 7> STATUS_WORDS = {"unchanged", "added",   "removed",      "changed",
                                                 "truncated", "unknown", "contradiction"};
// Every status word of SPEC B §9 (`contradiction` exists in the enum but is never produced).

}  // namespace

std::string text(const Json& value) {
  // A string as is, anything else as JSON (invalid UTF-8 replaced, never thrown).
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<int64_t> integer(const Json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  return std::nullopt;
}

std::string html(const std::string& value) {
  return escapeHtml(value);
}

std::string statusClass(const Json& status) {
  if (status.is_string()) {
    for (const char* word : STATUS_WORDS) {
      if (status.get_ref<const std::string&>() == word) return std::string("status-") + word;
    }
  }
  return "status-other";
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", value);
  return buffer;
}

std::string visibleControls(const std::string& bytes) {
  // Escaped text with control characters shown as `\r`, `\n`, `\e`, `\xNN` (a stream excerpt
  // is mostly about them).
  std::string out;
  std::string plain;
  auto flush = [&]() {
    out += html(plain);
    plain.clear();
  };
  for (char c : sanitizeUtf8(bytes)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      plain.push_back(c);
      continue;
    }
    flush();
    char name[8];
    if (c == '\r') {
      std::snprintf(name, sizeof(name), "\\r");
    } else if (c == '\n') {
      std::snprintf(name, sizeof(name), "\\n");
    } else if (c == '\t') {
      std::snprintf(name, sizeof(name), "\\t");
    } else if (u == 0x1b) {
      std::snprintf(name, sizeof(name), "\\e");
    } else {
      std::snprintf(name, sizeof(name), "\\x%02x", u);
    }
    out += "<span class=\"ctl\">";
    out += name;
    out += "</span>";
  }
  flush();
  return out;
}

}  // namespace rea::evidence::report_html
