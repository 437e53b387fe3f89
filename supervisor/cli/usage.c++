#include "supervisor/cli/usage.h"

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
    "  capture-batch DIR --out RESULTS      capture a corpus of scenarios, in parallel\n"
    "  compare-batch LEFT RIGHT --out DIR   compare two capture-batch results\n"
    "  export-asciicast CAPTURE             the capture's terminal stream as asciicast v2\n"
    "  export-screen CAPTURE [--at WHEN]    one rendered screen as an SVG picture\n"
    "  report LEFT RIGHT                    a comparison as one self-contained HTML page\n"
    "  stability [-n N] FILE                capture FILE N times: do the captures agree?\n"
    "  record-scenario OUT -- COMMAND       record a terminal session as a reactive scenario\n"
    "  doctor                               what this machine supports; stale leftovers\n"
    "  mcp                                  serve both as MCP tools on stdin/stdout\n"
    "  helper NAME [ARGS]                   run one helper alone (debugging)\n"
    "  help [COMMAND]                       this text, or a command's help\n"
    "  --version                            print the version\n"
    "\n"
    "Results are JSON on stdout when it is a pipe or a file, and a summary in words when it\n"
    "is a terminal (choose with --format json|text; -o FILE writes the JSON to FILE).\n"
    "Failures print a JSON error object on stdout and one line on stderr, and exit 1; usage\n"
    "errors exit 2. A file argument of - is standard input; -- ends the options.\n"
    "\n"
    "Guides: docs/first-capture.md, docs/scenario.md, docs/policy.md, docs/evidence.md,\n"
    "docs/batch.md.\n";

const char CAPTURE[] =
    "usage: rea capture-process [--pretty] [-o FILE] [--format json|text] SCENARIO.json|-\n"
    "\n"
    "Runs the scenario's executable in a real PTY under the operator policy taken from the\n"
    "environment (REA_PROCESS_CAPTURE_ENABLED, REA_PROCESS_EXECUTABLE_ROOTS_JSON,\n"
    "REA_PROCESS_WORKING_ROOTS_JSON, REA_PROCESS_ALLOWED_ENV_JSON,\n"
    "REA_PROCESS_ALLOW_EXTERNAL_NETWORK, REA_PROCESS_MAX_PIDS) and prints the capture Evidence.\n"
    "\n"
    "While it runs, and only when stderr is a terminal, a progress line on stderr shows the\n"
    "elapsed time, the bytes of target output captured so far and the phase (starting,\n"
    "running, settling, snapshot, cleanup, assembling), e.g.\n"
    "  rea: 2.3 s  running  1532 bytes captured\n"
    "When output was dropped at limits.output_bytes the line ends with \"(limits.output_bytes\n"
    "reached: output truncated)\". It is redrawn in place at most four times a second and\n"
    "erased at the end; nothing of it is written when stderr is a pipe or a file. Before it\n"
    "starts, the capture removes temporary roots and capture cgroups left by a killed run\n"
    "(see rea doctor).\n"
    "\n"
    "The scenario format is described in docs/scenario.md, the policy variables in\n"
    "docs/policy.md. A capture that reached one of the scenario's limits is truncated: a\n"
    "warning on stderr names the limit (\"rea: warning: the capture is truncated. Limit\n"
    "reached: ...\"), and so do the Evidence's limitations and the summary.\n"
    "\n"
    "An input, resize or signal event may wait for the target instead of a fixed at_ms:\n"
    "  {\"type\": \"input\", \"when\": {\"type\": \"output_literal\", \"value\": \"name? \"},\n"
    "   \"data\": \"world\\r\", \"timeout_ms\": 5000}\n"
    "Conditions: output_literal, output_regex, screen_literal (optional row), checkpoint,\n"
    "root_exit; with delay_ms, timeout_ms and on_timeout (continue, stop). Events stay in\n"
    "order: a condition is watched once the previous event was dispatched. See\n"
    "docs/scenario-events.md and examples/interactive-reactive.json.\n"
    "\n"
    "options:\n"
    "  --pretty              indent the JSON output\n"
    "  -o, --output FILE     write the JSON Evidence to FILE (whole, or not at all); stdout\n"
    "                        then gets the summary unless --format json\n"
    "  --format json|text    what stdout gets: the JSON Evidence, or a summary in words\n"
    "                        (default: text on a terminal, json otherwise)\n"
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
    "On a terminal it prints the per-dimension table and the first divergence in words (and\n"
    "the JSON when stdout is a pipe or file; the table then also goes to stderr when that is a\n"
    "terminal). How the comparison decides is described in docs/evidence.md.\n"
    "\n"
    "options:\n"
    "  --pretty                    indent the JSON output\n"
    "  -o, --output FILE           write the JSON Evidence to FILE (whole, or not at all)\n"
    "  --format json|text          what stdout gets (default: text on a terminal, else json)\n"
    "  --exit-code                 exit like diff(1): 0 unchanged, 1 changed (or unknown or\n"
    "                              truncated), 2 an error\n"
    "  --baseline-semantics        compare exactly as REA v4 does (timestamps and read\n"
    "                              boundaries are content)\n"
    "  --timing-tolerance-ms N     timing deviations up to N ms are not divergences\n"
    "                              (default max(50, 5 x time_bucket_ms))\n"
    "  --max-capture-age-ms N      reject captures completed more than N ms ago\n"
    "\n"
    "example:\n"
    "  rea compare-process-captures authority.json reconstruction.json --pretty\n"
    "  rea compare-process-captures --exit-code -o comparison.json before.json after.json\n";

const char CAPTURE_BATCH[] =
    "usage: rea capture-batch [OPTIONS] DIR|LIST --out RESULTS\n"
    "\n"
    "Captures every scenario of a corpus, each by its own rea capture-process, under the\n"
    "operator policy of capture-process. DIR is searched recursively for *.json files (names\n"
    "starting with . are skipped); a LIST file names one scenario per line, relative to its own\n"
    "directory (blank lines and # comments ignored). Each scenario's id is its path relative to\n"
    "DIR without .json, with / written as ~ and other unsafe bytes as %XX (login/ok.json is\n"
    "login~ok). RESULTS gets evidence/ID.json (the capture Evidence), errors/ID.json (the\n"
    "error object of a failed capture), logs/ID.txt (its warnings) and results.json (this\n"
    "batch: each scenario's status, captured, kept or failed; results-shard-I-of-N.json for a\n"
    "shard), which also goes to stdout (JSON, or a summary in words on a terminal).\n"
    "\n"
    "A rerun keeps every Evidence that is complete, valid and made from its scenario as it is\n"
    "now, and captures the rest (--force captures all). Evidence is renamed into place only\n"
    "once complete, so a batch killed at any moment leaves no half-written Evidence;\n"
    "SIGINT, SIGTERM or SIGHUP cancel the running captures (each cleans up) and exit 1, and\n"
    "captures of a batch killed with SIGKILL cancel themselves. A failed capture is recorded,\n"
    "never fatal: the exit status is 0 when every scenario has a result. While it runs, and\n"
    "only when stderr is a terminal, a progress line shows the counts.\n"
    "\n"
    "Shards: --shard I/N captures the I-th (from 0) of every N scenarios in id order; the N\n"
    "workers share RESULTS and compare-batch reads it whole. Without --shard the share is\n"
    "taken from the environment: REA_SHARD=I/N, TEST_SHARD_INDEX and TEST_TOTAL_SHARDS, a\n"
    "Slurm job array (SLURM_ARRAY_TASK_ID, _MIN, _COUNT or _MAX, _STEP; submit with\n"
    "--array=0-(N-1)), or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX with REA_SHARD_COUNT\n"
    "set to the Job's completions). See docs/batch.md and examples/cluster/.\n"
    "\n"
    "options:\n"
    "  --out RESULTS         the results directory (created if needed; required)\n"
    "  -j, --jobs N          captures at a time (default: the CPUs rea may use)\n"
    "  --shard I/N           capture this worker's share only\n"
    "  --force               capture again even where valid Evidence exists\n"
    "  --pretty              indent the JSON output\n"
    "  --format json|text    what stdout gets (default: text on a terminal, else json)\n"
    "\n"
    "example:\n"
    "  rea capture-batch corpus/ --out authority-results/ --jobs 2\n";

const char COMPARE_BATCH[] =
    "usage: rea compare-batch [OPTIONS] LEFT RIGHT --out REPORT\n"
    "\n"
    "Pairs the scenarios of two capture-batch results directories by id and compares each\n"
    "pair exactly as compare-process-captures does. REPORT gets pairs/ID.json (the pair's\n"
    "comparison Evidence), pairs/ID.html (its page, as rea report makes it), summary.json\n"
    "(the overall status, counts per status and per dimension, each pair's status and first\n"
    "divergence, the scenarios present on one side only) and index.html (the summary, linking\n"
    "each pair's page). The summary also goes to stdout (JSON, or words on a terminal). A pair\n"
    "that cannot be compared (a failed capture, malformed Evidence, different comparison\n"
    "contracts) is a failed pair in the summary. The shards of a batch written into one\n"
    "results directory are compared together.\n"
    "\n"
    "options:\n"
    "  --out REPORT                the report directory (created if needed; required)\n"
    "  --exit-code                 exit 0 when every pair is unchanged and the batch is\n"
    "                              complete (no failed or one-sided scenario), 1 otherwise,\n"
    "                              2 an error\n"
    "  --baseline-semantics        compare exactly as REA v4 does\n"
    "  --timing-tolerance-ms N     timing deviations up to N ms are not divergences\n"
    "  --pretty                    indent the JSON output\n"
    "  --format json|text          what stdout gets (default: text on a terminal, else json)\n"
    "\n"
    "example:\n"
    "  rea compare-batch authority-results/ port-results/ --out report/ --exit-code\n";

const char DOCTOR[] =
    "usage: rea doctor [--json] [--clean]\n"
    "\n"
    "Reports what this machine supports (PTY, /proc, cgroup v2, proc connector, network\n"
    "namespaces, io_uring, seccomp) and what rea does about each, the operator policy as\n"
    "parsed from the environment, and temporary roots and capture cgroups left by a killed\n"
    "run. A capture cgroup is stale when the rea that made it has exited (its owner record,\n"
    "pid and start time, names no live process); a group without a record, once older than a\n"
    "minute. Each capture-process removes stale leftovers before it starts.\n"
    "\n"
    "options:\n"
    "  --json    machine-readable report\n"
    "  --clean   remove leftovers that have no live owner\n"
    "\n"
    "The policy is checked as a capture would check it; its roots are shown as written and\n"
    "as they resolve (e.g. /bin -> /usr/bin). Exits 0 when captures can run, and 1 with the\n"
    "reason (also on stderr) when they would be refused: an invalid or disabled policy, or a\n"
    "missing required feature.\n";

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

const char EXPORT_SCREEN[] =
    "usage: rea export-screen [--at end|frame:N|checkpoint:NAME] CAPTURE.json\n"
    "\n"
    "Prints one rendered screen of the capture as an SVG picture, with its colours and\n"
    "attributes, for pull requests and documentation. The capture is validated first.\n"
    "\n"
    "options:\n"
    "  --at end               the last rendered screen (the default)\n"
    "  --at frame:N           rendered frame N (counted from 0)\n"
    "  --at checkpoint:NAME   the screen when the checkpoint NAME was taken\n"
    "\n"
    "example:\n"
    "  rea export-screen capture.json --at checkpoint:ready > screen.svg\n";

const char REPORT[] =
    "usage: rea report [OPTIONS] LEFT.json RIGHT.json\n"
    "\n"
    "Compares two capture Evidence files exactly as compare-process-captures does and prints\n"
    "the result as one self-contained HTML page (no scripts, no external resources): the\n"
    "status of each of the seven dimensions, the first divergence with both values, the two\n"
    "terminal screens at that moment side by side (the last rendered frame, or the raw output\n"
    "as plain text when the capture has no rendered frame), the timing deviations as a bar\n"
    "chart against the tolerance, and the limitations. Errors are the JSON error objects of\n"
    "compare-process-captures; on an error nothing of the page is printed.\n"
    "\n"
    "options:\n"
    "  --baseline-semantics        compare exactly as REA v4 does (timestamps and read\n"
    "                              boundaries are content)\n"
    "  --timing-tolerance-ms N     timing deviations up to N ms are not divergences\n"
    "                              (default max(50, 5 x time_bucket_ms))\n"
    "\n"
    "example:\n"
    "  rea report authority.json reconstruction.json > report.html\n";

const char STABILITY[] =
    "usage: rea stability [OPTIONS] SCENARIO.json\n"
    "\n"
    "Captures the scenario N times (default 3, 2 to 20), one after another, under the operator\n"
    "policy of capture-process, compares every pair of captures as compare-process-captures\n"
    "does by default, and reports for each of the seven dimensions whether the captures agree:\n"
    "stable (every pair unchanged), unstable (some pair changed, added or removed, including\n"
    "timing beyond the tolerance) or unknown (a truncated capture or a residual unknown\n"
    "prevents proving agreement), then the first divergence of each pair that differs. Run it\n"
    "before trusting a scenario's verdicts: a scenario that is not stable against itself\n"
    "cannot tell an authority from a reconstruction.\n"
    "\n"
    "The result is a summary in words when stdout is a terminal (or the JSON went to -o),\n"
    "and JSON otherwise:\n"
    "  {\"runs\", \"pairs\", \"status\", \"dimensions\": {\"terminal\": \"stable\", ...},\n"
    "   \"differences\": [{\"left\", \"right\", \"status\", \"dimensions\", "
    "\"first_divergence\"}],\n"
    "   \"limitations\"}\n"
    "Exits 0 when the captures were made and compared, whatever the verdict; a capture that\n"
    "fails prints its error object and exits 1.\n"
    "\n"
    "options:\n"
    "  -n, --runs N                number of captures (default 3)\n"
    "  -o, --output FILE           write the JSON to FILE\n"
    "  --format json|text          what stdout gets (default: text on a terminal, else json)\n"
    "  --pretty                    indent the JSON output\n"
    "  --timing-tolerance-ms N     timing deviations up to N ms are not divergences\n"
    "                              (default max(50, 5 x time_bucket_ms))\n"
    "\n"
    "example:\n"
    "  rea stability -n 5 examples/interactive.json\n";

const char MCP[] =
    "usage: rea mcp\n"
    "\n"
    "Serves the Model Context Protocol (revision 2025-11-25, and older ones a client asks\n"
    "for) on stdin and stdout, one JSON-RPC 2.0 message per line, for coding agents and other\n"
    "MCP clients. Two tools: capture_process_scenario (the scenario as its arguments; the\n"
    "capture Evidence as its result) and compare_process_captures (two captures of this\n"
    "session named by evidence_id; the comparison Evidence). The operator policy is read from\n"
    "the server's environment as for capture-process; without it every capture is refused.\n"
    "\n"
    "Captures run one at a time and report progress (start, bytes captured, end);\n"
    "notifications/cancelled stops one, cleans up and answers with the `cancelled` error.\n"
    "The session keeps the 64 newest captures (at most 256 MiB; older ones are evicted, and\n"
    "the capture result says so). Only protocol messages go to stdout. End of input, SIGINT,\n"
    "SIGTERM or SIGHUP end the server after cancelling a running capture. How to register it\n"
    "with common clients: docs/mcp.md.\n"
    "\n"
    "example (an MCP client's server entry):\n"
    "  {\"command\": \"rea\", \"args\": [\"mcp\"],\n"
    "   \"env\": {\"REA_PROCESS_CAPTURE_ENABLED\": \"true\", ...}}\n";
const char RECORD_SCENARIO[] =
    "usage: rea record-scenario OUT.json -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND in a new terminal attached to yours (like script or asciinema rec) and,\n"
    "when it ends, writes a scenario to OUT.json that replays what you typed: each input\n"
    "waits for the text the command printed just before you typed it (an output_literal\n"
    "condition), keys the command only echoed join one input, a resize of your terminal\n"
    "becomes a resize event waiting for the last text on the screen, Ctrl-C is the input\n"
    "\\u0003. Every event has a timeout_ms of 10000, so a replay that differs records\n"
    "timed_out instead of hanging. The command runs as you, outside any capture; capturing\n"
    "the written scenario needs the operator policy as usual. Mark passwords afterwards\n"
    "with \"sensitive\": true. See docs/scenario-events.md.\n"
    "\n"
    "example:\n"
    "  rea record-scenario login.json -- ./login.sh\n"
    "  rea capture-process login.json > capture.json\n";

const char HELPER[] =
    "usage: rea helper NAME --standalone REQUEST.json\n"
    "\n"
    "Runs one helper (pty, sampler, fswatch, shim, replay) alone: it reads its start request\n"
    "as JSON, does its job against the real system and prints its events as JSON lines.\n";

}  // namespace

const std::vector<const char*>& helpCommands() {
  static const std::vector<const char*> names = {"capture-process",
                                                 "compare-process-captures",
                                                 "capture-batch",
                                                 "compare-batch",
                                                 "export-asciicast",
                                                 "export-screen",
                                                 "report",
                                                 "stability",
                                                 "record-scenario",
                                                 "doctor",
                                                 "mcp",
                                                 "helper"};
  return names;
}

bool hasUsage(const char* command) {
  for (const char* name : helpCommands()) {
    if (std::strcmp(name, command) == 0) return true;
  }
  return false;
}

std::string usageFor(const char* command) {
  if (command != nullptr) {
    if (std::strcmp(command, "capture-process") == 0) return CAPTURE;
    if (std::strcmp(command, "compare-process-captures") == 0) return COMPARE;
    if (std::strcmp(command, "capture-batch") == 0) return CAPTURE_BATCH;
    if (std::strcmp(command, "compare-batch") == 0) return COMPARE_BATCH;
    if (std::strcmp(command, "doctor") == 0) return DOCTOR;
    if (std::strcmp(command, "export-asciicast") == 0) return EXPORT_ASCIICAST;
    if (std::strcmp(command, "export-screen") == 0) return EXPORT_SCREEN;
    if (std::strcmp(command, "helper") == 0) return HELPER;
    if (std::strcmp(command, "mcp") == 0) return MCP;
    if (std::strcmp(command, "report") == 0) return REPORT;
    if (std::strcmp(command, "stability") == 0) return STABILITY;
    if (std::strcmp(command, "record-scenario") == 0) return RECORD_SCENARIO;
  }
  return OVERVIEW;
}

}  // namespace rea::supervisor
