#include "supervisor/cli/man-page.h"

#include <sstream>

#include "supervisor/cli/usage.h"

namespace rea::supervisor {
namespace {

// Help text is preformatted (aligned option columns): it goes in a no-fill block as-is.
void appendVerbatim(std::string& out, const std::string& text) {
  out += ".nf\n";
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    out += roffEscape(line) + "\n";
  }
  out += ".fi\n";
}

}  // namespace

std::string roffEscape(const std::string& line) {
  std::string out;
  if (!line.empty() && (line[0] == '.' || line[0] == '\'')) out += "\\&";
  for (char c : line) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";  // a real minus: options stay searchable and copyable
    } else {
      out += c;
    }
  }
  return out;
}

std::string manPage() {
  std::string out;
  out += ".TH REA 1 \"\" \"rea " REA_VERSION "\" \"User Commands\"\n";
  // No hyphenation anywhere: a hyphen inserted into REA_PROCESS_EXECUTABLE_ROOTS_JSON or an
  // option name would be copied along with it.
  out += ".nh\n";
  out += ".SH NAME\n";
  out += "rea \\- record a command run as deterministic Evidence and compare two records\n";
  out += ".SH SYNOPSIS\n";
  for (const char* command : helpCommands()) {
    // The full synopsis is the first line of the command's help, after "usage: rea ".
    std::string usage = usageFor(command);
    std::string synopsis = usage.substr(0, usage.find('\n'));
    const std::string prefix = "usage: rea ";
    if (synopsis.rfind(prefix, 0) == 0) synopsis = synopsis.substr(prefix.size());
    out += ".B rea\n" + roffEscape(synopsis) + "\n.br\n";
  }
  out += ".SH DESCRIPTION\n";
  appendVerbatim(out, usageFor(nullptr));
  out += ".SH COMMANDS\n";
  for (const char* command : helpCommands()) {
    out += ".SS " + roffEscape(command) + "\n";
    appendVerbatim(out, usageFor(command));
  }
  out += ".SH ENVIRONMENT\n";
  out +=
      "The operator policy of capture\\-process comes from REA_PROCESS_CAPTURE_ENABLED,\n"
      "REA_PROCESS_EXECUTABLE_ROOTS_JSON, REA_PROCESS_WORKING_ROOTS_JSON,\n"
      "REA_PROCESS_ALLOWED_ENV_JSON, REA_PROCESS_ALLOW_EXTERNAL_NETWORK and\n"
      "REA_PROCESS_MAX_PIDS (how many of a target's processes may live at once, default 4096).\n";
  out += ".SH EXIT STATUS\n";
  out +=
      "0 on success; 1 when an error object was printed on standard output;\n"
      "2 on a usage error. With \\-\\-exit\\-code, compare\\-process\\-captures exits 0 when\n"
      "the captures are unchanged, 1 when they are not, 2 on an error. doctor exits 1 when\n"
      "captures would be refused.\n";
  out += ".SH SEE ALSO\n";
  out += ".BR script (1),\n.BR asciinema (1)\n";
  out +=
      ".br\nThe guides docs/first\\-capture.md, docs/scenario.md, docs/policy.md and\n"
      "docs/evidence.md in the source repository.\n";
  return out;
}

}  // namespace rea::supervisor
