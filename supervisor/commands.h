#pragma once
// The command entry points the CLI dispatches to. Each takes the arguments after the command
// name and returns the process exit code (0 success, 1 an error object was printed, 2 usage).

#include <string>
#include <vector>

namespace rea::supervisor {

int runCaptureCommand(const std::vector<std::string>& args);
int runCompareCommand(const std::vector<std::string>& args);
int runDoctorCommand(const std::vector<std::string>& args);
int runHelperCommand(const std::vector<std::string>& args);
int runExportAsciicastCommand(const std::vector<std::string>& args);

int usageError(const std::string& problem, const char* command);
// Prints the problem and the command's usage on stderr; returns 2.

}  // namespace rea::supervisor
