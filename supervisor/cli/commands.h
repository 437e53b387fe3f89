#pragma once
// The command entry points the CLI dispatches to. Each takes the arguments after the command
// name and returns the process exit code (0 success, 1 an error object was printed, 2 usage).

#include <cstdint>
#include <string>
#include <vector>

namespace rea::supervisor {

int runCaptureCommand(const std::vector<std::string>& args);
int runCaptureBatchCommand(const std::vector<std::string>& args);
int runCompareBatchCommand(const std::vector<std::string>& args);
int runCompareCommand(const std::vector<std::string>& args);
int runDoctorCommand(const std::vector<std::string>& args);
int runHelperCommand(const std::vector<std::string>& args);
int runExportAsciicastCommand(const std::vector<std::string>& args);
int runExportScreenCommand(const std::vector<std::string>& args);
int runReportCommand(const std::vector<std::string>& args);
int runMcpCommand(const std::vector<std::string>& args);
int runStabilityCommand(const std::vector<std::string>& args);
int runRecordScenarioCommand(const std::vector<std::string>& args);

int usageError(const std::string& problem, const char* command);
// Prints the problem and the command's usage on stderr; returns 2.

bool parseCount(const std::string& text, int64_t& out);
// An option's value as a non-negative decimal integer of at most 15 digits (so it stays a
// JavaScript safe integer); false for anything else.

}  // namespace rea::supervisor
