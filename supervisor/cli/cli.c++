#include "supervisor/cli/cli.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "supervisor/cli/commands.h"
#include "supervisor/cli/man-page.h"
#include "supervisor/cli/usage.h"

namespace rea::supervisor {
namespace {

struct Command {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
};

const Command COMMANDS[] = {
    {"capture-batch", runCaptureBatchCommand},
    {"capture-process", runCaptureCommand},
    {"compare-batch", runCompareBatchCommand},
    {"compare-process-captures", runCompareCommand},
    {"doctor", runDoctorCommand},
    {"export-asciicast", runExportAsciicastCommand},
    {"export-screen", runExportScreenCommand},
    {"helper", runHelperCommand},
    {"mcp", runMcpCommand},
    {"record-scenario", runRecordScenarioCommand},
    {"report", runReportCommand},
    {"stability", runStabilityCommand},
};

}  // namespace

int usageError(const std::string& problem, const char* command) {
  // Short, like other Unix tools: the problem and where the help is, not the whole help.
  std::string name = command != nullptr ? std::string("rea ") + command : std::string("rea");
  std::fprintf(stderr, "%s: %s\ntry `%s --help`\n", name.c_str(), problem.c_str(), name.c_str());
  return 2;
}

bool parseCount(const std::string& text, int64_t& out) {
  if (text.empty() || text.size() > 15) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  out = std::stoll(text);
  return true;
}

int runCli(int argc, char** argv) {
  if (argc < 2) return usageError("a command is required", nullptr);
  std::string command = argv[1];
  if (command == "--version" || command == "version") {
    std::printf("rea %s\n", REA_VERSION);
    return 0;
  }
  if (command == "help" && argc > 2 && std::strcmp(argv[2], "--man") == 0) {
    std::fputs(manPage().c_str(), stdout);
    return 0;
  }
  if (command == "--help" || command == "-h" || command == "help") {
    const char* topic = argc > 2 ? argv[2] : nullptr;
    if (topic != nullptr && !hasUsage(topic)) {
      return usageError(std::string("no help on ") + topic + " (not a command)", nullptr);
    }
    std::fputs(usageFor(topic).c_str(), stdout);
    return 0;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& entry : COMMANDS) {
    if (command != entry.name) continue;
    // `rea helper NAME --help` belongs to the helper; every other command answers --help itself.
    if (command != "helper") {
      for (const auto& arg : args) {
        if (arg == "--") break;  // after it, `--help` is a file name
        if (arg == "--help" || arg == "-h") {
          std::fputs(usageFor(entry.name).c_str(), stdout);
          return 0;
        }
      }
    }
    return entry.run(args);
  }
  return usageError("unknown command: " + command, nullptr);
}

}  // namespace rea::supervisor
