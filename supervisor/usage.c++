#include "supervisor/usage.h"

#include <cstring>

namespace rea::supervisor {
namespace {

const char OVERVIEW[] =
    "usage: rea COMMAND [OPTIONS] [ARGS]\n"
    "\n"
    "Records one approved command as deterministic Evidence and compares two such records.\n"
    "\n"
    "commands:\n"
    "  capture-process FILE                 run the scenario FILE in a PTY, print its Evidence\n"
    "  compare-process-captures LEFT RIGHT  compare two capture Evidence files\n"
    "  export-asciicast CAPTURE             the capture's terminal stream as asciicast v2\n"
    "  doctor                               what this machine supports; stale leftovers\n"
    "  helper NAME [ARGS]                   run one helper alone (debugging)\n"
    "  help [COMMAND]                       this text, or a command's help\n"
    "  --version                            print the version\n"
    "\n"
    "Results are JSON on stdout. Failures print a JSON error object on stdout and one line on\n"
    "stderr, and exit 1; usage errors exit 2.\n";

const char CAPTURE[] =
    "usage: rea capture-process [--pretty] SCENARIO.json\n"
    "\n"
    "Runs the scenario's executable in a real PTY under the operator policy taken from the\n"
    "environment (REA_PROCESS_CAPTURE_ENABLED, REA_PROCESS_EXECUTABLE_ROOTS_JSON,\n"
    "REA_PROCESS_WORKING_ROOTS_JSON, REA_PROCESS_ALLOWED_ENV_JSON,\n"
    "REA_PROCESS_ALLOW_EXTERNAL_NETWORK) and prints the capture Evidence.\n"
    "\n"
    "options:\n"
    "  --pretty   indent the JSON output\n"
    "\n"
    "example:\n"
    "  set -a; . examples/policy.env; set +a\n"
    "  rea capture-process examples/hello.json > capture.json\n";

const char COMPARE[] =
    "usage: rea compare-process-captures [OPTIONS] LEFT.json RIGHT.json\n"
    "\n"
    "Compares two capture Evidence files made under the same comparison contract and prints\n"
    "the comparison Evidence: seven dimensions (terminal, interaction, exit, filesystem,\n"
    "protocol, process, shim), the overall status and the first divergence.\n"
    "\n"
    "options:\n"
    "  --pretty                    indent the JSON output\n"
    "  --baseline-semantics        compare exactly as REA v4 does (timestamps and read\n"
    "                              boundaries are content)\n"
    "  --timing-tolerance-ms N     timing deviations up to N ms are not divergences\n"
    "                              (default max(50, 5 x time_bucket_ms))\n"
    "  --max-capture-age-ms N      reject captures completed more than N ms ago\n"
    "\n"
    "example:\n"
    "  rea compare-process-captures authority.json reconstruction.json --pretty\n";

const char DOCTOR[] =
    "usage: rea doctor [--json] [--clean]\n"
    "\n"
    "Reports what this machine supports (PTY, /proc, cgroup v2, proc connector, network\n"
    "namespaces, io_uring, seccomp) and what rea does about each, the operator policy as\n"
    "parsed from the environment, and temporary roots left by a killed run.\n"
    "\n"
    "options:\n"
    "  --json    machine-readable report\n"
    "  --clean   remove leftovers that have no live owner\n"
    "\n"
    "Exits 0 when captures can run.\n";

const char EXPORT_ASCIICAST[] =
    "usage: rea export-asciicast CAPTURE.json\n"
    "\n"
    "Prints the capture's terminal output as an asciicast v2 recording: its frames as output\n"
    "events at their recorded times, dispatched resizes, and dispatched inputs that are not\n"
    "sensitive. The text is the capture's normalised, redacted text. The capture is validated\n"
    "first; a tampered file is refused.\n"
    "\n"
    "example:\n"
    "  rea export-asciicast capture.json > run.cast && asciinema play run.cast\n";

const char HELPER[] =
    "usage: rea helper NAME --standalone REQUEST.json\n"
    "\n"
    "Runs one helper (pty, sampler, fswatch, shim, replay) alone: it reads its start request\n"
    "as JSON, does its job against the real system and prints its events as JSON lines.\n";

}  // namespace

const std::vector<const char*>& helpCommands() {
  static const std::vector<const char*> names = {"capture-process", "compare-process-captures",
                                                 "export-asciicast", "doctor", "helper"};
  return names;
}

std::string usageFor(const char* command) {
  if (command != nullptr) {
    if (std::strcmp(command, "capture-process") == 0) return CAPTURE;
    if (std::strcmp(command, "compare-process-captures") == 0) return COMPARE;
    if (std::strcmp(command, "doctor") == 0) return DOCTOR;
    if (std::strcmp(command, "export-asciicast") == 0) return EXPORT_ASCIICAST;
    if (std::strcmp(command, "helper") == 0) return HELPER;
  }
  return OVERVIEW;
}

}  // namespace rea::supervisor
