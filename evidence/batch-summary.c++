#include "evidence/batch-summary.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "evidence/report-html.h"

namespace rea::evidence {
namespace {

const char* const DIMENSIONS[] = {"terminal", "interaction", "exit", "filesystem",
                                  "protocol", "process",     "shim"};
const char* const DIMENSION_STATUSES[] = {"unchanged", "changed", "added",
                                          "removed",   "unknown", "truncated"};

void increment(Json& counter) {
  counter = counter.get<int64_t>() + 1;
}

std::string shortened(const Json& value, size_t limit) {
  std::string text = value.is_string() ? value.get<std::string>()
                                       : value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > limit) {
    // Cut on a UTF-8 character boundary: escapeHtml would otherwise replace the broken tail.
    size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
      --cut;
    text = text.substr(0, cut) + "…";
  }
  return text;
}

// "terminal[3]" or, for a timing divergence, "terminal (timing)"; "" when none was found.
std::string divergenceWhere(const Json& divergence) {
  if (!divergence.is_object() || divergence.value("status", "") != "found") return "";
  std::string where = divergence.value("dimension", "");
  if (divergence.value("timing", false)) return where + " (timing)";
  if (divergence.contains("index") && divergence["index"].is_number()) {
    where += "[" + std::to_string(divergence["index"].get<int64_t>()) + "]";
  }
  return where;
}

}  // namespace

Json comparedPair(const std::string& id, const Json& comparison) {
  Json dimensions = Json::array();
  for (const char* dimension : DIMENSIONS) {
    if (comparison.value(dimension, "") != "unchanged") dimensions.push_back(dimension);
  }
  return {{"id", id},
          {"status", comparison.value("status", "")},
          {"dimensions", dimensions},
          {"dimension_statuses",
           [&] {
             Json statuses = Json::object();
             for (const char* dimension : DIMENSIONS)
               statuses[dimension] = comparison[dimension];
             return statuses;
           }()},
          {"first_divergence", comparison["first_divergence"]},
          {"report", "pairs/" + id + ".html"},
          {"comparison", "pairs/" + id + ".json"}};
}

Json failedPair(const std::string& id, const Json* leftError, const Json* rightError,
                const std::string& reason) {
  Json entry = {{"id", id}, {"status", "failed"}};
  if (leftError != nullptr) entry["left_error"] = *leftError;
  if (rightError != nullptr) entry["right_error"] = *rightError;
  if (!reason.empty()) entry["reason"] = reason;
  return entry;
}

Json summariseBatch(const std::string& left, const std::string& right, std::vector<Json> pairs,
                    const std::vector<std::string>& leftOnly,
                    const std::vector<std::string>& rightOnly) {
  Json counts = {{"pairs", pairs.size()},
                 {"unchanged", 0},
                 {"changed", 0},
                 {"unknown", 0},
                 {"truncated", 0},
                 {"failed", 0},
                 {"left_only", leftOnly.size()},
                 {"right_only", rightOnly.size()}};
  Json dimensions = Json::object();
  for (const char* dimension : DIMENSIONS) {
    for (const char* status : DIMENSION_STATUSES)
      dimensions[dimension][status] = 0;
  }
  for (Json& pair : pairs) {
    std::string status = pair["status"];
    if (counts.contains(status)) increment(counts[status]);
    if (!pair.contains("dimension_statuses")) continue;
    for (const char* dimension : DIMENSIONS) {
      std::string value = pair["dimension_statuses"].value(dimension, "");
      if (dimensions[dimension].contains(value)) increment(dimensions[dimension][value]);
    }
    pair.erase("dimension_statuses");  // counted here; the pair lists what is not unchanged
  }
  int64_t compared = counts["unchanged"].get<int64_t>() + counts["changed"].get<int64_t>() +
                     counts["unknown"].get<int64_t>() + counts["truncated"].get<int64_t>();
  std::string status = counts["truncated"] > 0                  ? "truncated"
                       : counts["changed"] > 0                  ? "changed"
                       : counts["unknown"] > 0 || compared == 0 ? "unknown"
                                                                : "unchanged";
  bool complete = counts["failed"] == 0 && leftOnly.empty() && rightOnly.empty();
  Json summary = {{"left", left},           {"right", right},        {"status", status},
                  {"complete", complete},   {"counts", counts},      {"dimensions", dimensions},
                  {"pairs", Json::array()}, {"left_only", leftOnly}, {"right_only", rightOnly}};
  for (Json& pair : pairs)
    summary["pairs"].push_back(std::move(pair));
  return summary;
}

std::string renderBatchIndexHtml(const Json& summary) {
  auto html = [](const std::string& text) { return escapeHtml(text); };
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>rea compare-batch: " << html(summary["status"].get<std::string>())
      << "</title>\n<style>\n"
      << "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
      << "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
      << "code{font-size:.9em;white-space:pre-wrap;word-break:break-all}"
      << ".unchanged{color:#2a7a2a}.changed,.failed{color:#b00020}.unknown,.truncated{color:#"
         "8a6d00}\n"
      << "</style>\n</head>\n<body>\n";
  out << "<h1>Batch comparison: <span class=\"" << html(summary["status"]) << "\">"
      << html(summary["status"]) << "</span>"
      << (summary["complete"].get<bool>() ? "" : " (incomplete)") << "</h1>\n";
  out << "<p>left: <code>" << html(summary["left"]) << "</code><br>right: <code>"
      << html(summary["right"]) << "</code></p>\n";
  out << "<table id=\"counts\">\n<tr>";
  for (const auto& item : summary["counts"].items())
    out << "<th>" << html(item.key()) << "</th>";
  out << "</tr>\n<tr>";
  for (const auto& item : summary["counts"].items()) {
    out << "<td>" << item.value().get<int64_t>() << "</td>";
  }
  out << "</tr>\n</table>\n";

  out << "<h2>Pairs</h2>\n<table id=\"pairs\">\n<tr><th>scenario</th><th>status</th>"
      << "<th>dimensions not unchanged</th><th>first divergence</th><th>left</th><th>right</th>"
      << "</tr>\n";
  for (const Json& pair : summary["pairs"]) {
    std::string id = pair["id"], status = pair["status"];
    out << "<tr id=\"pair-" << html(id) << "\" class=\"pair\">";
    if (pair.contains("report")) {
      out << "<td><a href=\"" << html(pair["report"]) << "\">" << html(id) << "</a></td>";
    } else {
      out << "<td>" << html(id) << "</td>";
    }
    out << "<td class=\"status " << html(status) << "\">" << html(status) << "</td>";
    if (status == "failed") {
      std::string why = pair.value("reason", "");
      if (pair.contains("left_error")) why += "left: " + pair["left_error"].value("message", "");
      if (pair.contains("right_error")) {
        why += (why.empty() ? "" : " ") + std::string("right: ") +
               pair["right_error"].value("message", "");
      }
      out << "<td></td><td colspan=\"3\">" << html(why) << "</td></tr>\n";
      continue;
    }
    std::string dimensions;
    for (const Json& name : pair["dimensions"]) {
      dimensions += (dimensions.empty() ? "" : ", ") + name.get<std::string>();
    }
    const Json& divergence = pair["first_divergence"];
    std::string where = divergenceWhere(divergence);
    out << "<td>" << html(dimensions) << "</td><td class=\"divergence\">"
        << html(where.empty() ? divergence.value("status", "") : where) << "</td>";
    if (where.empty()) {
      out << "<td></td><td></td>";
    } else {
      out << "<td><code>" << html(shortened(divergence["left"], 160)) << "</code></td><td><code>"
          << html(shortened(divergence["right"], 160)) << "</code></td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
  for (const char* side : {"left_only", "right_only"}) {
    if (summary[side].empty()) continue;
    out << "<h2>Only on the " << (std::string(side) == "left_only" ? "left" : "right")
        << "</h2>\n<ul id=\"" << side << "\">\n";
    for (const Json& id : summary[side])
      out << "<li>" << html(id) << "</li>\n";
    out << "</ul>\n";
  }
  out << "</body>\n</html>\n";
  return out.str();
}

std::string summariseBatchText(const Json& summary) {
  const Json& counts = summary["counts"];
  std::ostringstream out;
  out << "rea: batch comparison: " << summary["status"].get<std::string>()
      << (summary["complete"].get<bool>() ? "" : " (incomplete)") << "\n  "
      << counts["pairs"].get<int64_t>() << " pairs: " << counts["unchanged"].get<int64_t>()
      << " unchanged, " << counts["changed"].get<int64_t>() << " changed, "
      << counts["unknown"].get<int64_t>() << " unknown, " << counts["truncated"].get<int64_t>()
      << " truncated, " << counts["failed"].get<int64_t>() << " failed; "
      << counts["left_only"].get<int64_t>() << " left only, " << counts["right_only"].get<int64_t>()
      << " right only\n";
  for (const Json& pair : summary["pairs"]) {
    std::string status = pair["status"];
    std::string where = status == "failed" ? "" : divergenceWhere(pair["first_divergence"]);
    // An unknown pair is listed only when a difference was observed (B §9.4).
    if (status == "unchanged" || (status == "unknown" && where.empty())) continue;
    out << "  " << status << ": " << pair["id"].get<std::string>()
        << (where.empty() ? "" : " at " + where) << "\n";
  }
  return out.str();
}

}  // namespace rea::evidence
