#include "evidence/capture-summary.h"

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "evidence/json-member.h"

namespace rea::evidence {
namespace {

size_t count(const Json& array) {
  return array.is_array() ? array.size() : 0;
}

std::string text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool startsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::string exitInWords(const Json& exit) {
  const Json& code = member(exit, "code");
  const Json& signal = member(exit, "signal");
  std::string reason = text(member(exit, "reason"));
  std::string words;
  if (code.is_number()) {
    words = "exited with code " + code.dump();
  } else if (signal.is_number()) {
    words = "killed by signal " + signal.dump();
  } else {
    words = "did not exit";
  }
  if (reason != "exited" && reason != "signaled" && !reason.empty() && reason != "null") {
    words += " (" + reason + ")";
  }
  return words;
}

// The limitations that explain a truncation: the "Limit reached" sentences, lost helpers, and
// any other sentence that says something is missing.
std::vector<std::string> truncationReasons(const Json& capture) {
  std::vector<std::string> reasons;
  const Json& limitations = member(capture, "limitations");
  if (!limitations.is_array()) return reasons;
  for (const Json& sentence : limitations) {
    if (!sentence.is_string()) continue;
    const std::string& s = sentence.get_ref<const std::string&>();
    if (startsWith(s, "Limit reached: ") || startsWith(s, "Lost helper: ") ||
        s.find("truncated") != std::string::npos) {
      reasons.push_back(s);
    }
  }
  return reasons;
}

std::string trimmedRow(const Json& line) {
  // Rows are padded with spaces to the terminal's width: shown without the padding.
  std::string row = line.is_string() ? line.get<std::string>() : "";
  while (!row.empty() && row.back() == ' ')
    row.pop_back();
  return row;
}

void lastScreen(std::ostringstream& out, const Json& capture) {
  const Json& rendered = member(capture, "rendered_frames");
  if (count(rendered) == 0) return;
  const Json& lines = member(rendered.back(), "lines");
  if (!lines.is_array()) return;
  // The screen without its trailing blank rows, at most 12 rows (the last ones).
  size_t end = lines.size();
  while (end > 0 && trimmedRow(lines[end - 1]).empty())
    --end;
  size_t begin = end > 12 ? end - 12 : 0;
  if (end == 0) {
    out << "last screen: (blank)\n";
    return;
  }
  out << "last screen" << (begin > 0 ? " (last 12 rows)" : "") << ":\n";
  for (size_t i = begin; i < end; ++i)
    out << "  | " << trimmedRow(lines[i]) << '\n';
}

}  // namespace

std::string summariseCapture(const Json& captureEvidence) {
  const Json& capture = member(captureEvidence, "normalized_result");
  const Json& manifest = member(capture, "manifest");
  const Json& parameters = member(captureEvidence, "parameters");
  std::ostringstream out;

  out << "capture: " << text(member(parameters, "executable_name")) << ' '
      << exitInWords(member(capture, "exit")) << '\n';

  const Json& frames = member(capture, "frames");
  size_t bytes = 0;
  if (frames.is_array()) {
    for (const Json& frame : frames) {
      const Json& data = member(frame, "data");
      if (data.is_string()) bytes += data.get_ref<const std::string&>().size();
    }
  }
  out << "  output:       " << plural(bytes, "byte", "bytes") << " in "
      << plural(count(frames), "chunk", "chunks") << ", "
      << plural(count(member(capture, "rendered_frames")), "rendered screen", "rendered screens")
      << '\n';
  out << "  interaction:  "
      << plural(count(member(capture, "interaction_events")), "event", "events") << '\n';

  std::string observation = text(member(manifest, "process_observation"));
  out << "  processes:    "
      << plural(count(member(capture, "process_samples")), "sample", "samples");
  if (observation == "exact" || observation == "sampled") out << " (" << observation << ")";
  out << '\n';

  std::map<std::string, size_t> effects;
  const Json& fileEffects = member(capture, "filesystem_effects");
  if (fileEffects.is_array()) {
    for (const Json& effect : fileEffects)
      ++effects[text(member(effect, "status"))];
  }
  out << "  files:        " << count(member(capture, "files_before")) << " before, "
      << count(member(capture, "files_after")) << " after";
  bool first = true;
  for (const auto& [status, n] : effects) {
    if (status == "unchanged") continue;
    out << (first ? "; " : ", ") << n << ' ' << status;
    first = false;
  }
  if (first) out << "; no changes";
  out << '\n';
  out << "  shims:        " << plural(count(member(capture, "shim_events")), "call", "calls")
      << '\n';
  out << "  protocol:     " << plural(count(member(capture, "protocol_events")), "event", "events")
      << '\n';

  if (member(capture, "truncated") == true) {
    out << "  truncated:    yes\n";
    for (const std::string& reason : truncationReasons(capture))
      out << "    - " << reason << '\n';
  } else {
    out << "  truncated:    no\n";
  }
  const Json& residuals = member(capture, "residual_unknowns");
  if (count(residuals) == 0) {
    out << "  residual unknowns: none\n";
  } else {
    out << "  residual unknowns (what this capture cannot vouch for):\n";
    for (const Json& residual : residuals) {
      out << "    - " << text(member(residual, "scope")) << ": " << text(member(residual, "reason"))
          << '\n';
    }
  }
  lastScreen(out, capture);
  out << "evidence id: " << text(member(captureEvidence, "evidence_id")) << '\n';
  return out.str();
}

std::vector<std::string> limitWarnings(const Json& captureEvidence) {
  const Json& capture = member(captureEvidence, "normalized_result");
  std::vector<std::string> lines;
  if (member(capture, "truncated") != true) return lines;
  for (const std::string& reason : truncationReasons(capture)) {
    lines.push_back("rea: warning: the capture is truncated. " + reason);
  }
  if (lines.empty())
    lines.push_back("rea: warning: the capture is truncated (see its limitations).");
  return lines;
}

}  // namespace rea::evidence
