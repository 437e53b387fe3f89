#include "supervisor/cli/command-line.h"

#include <algorithm>

#include "supervisor/cli/commands.h"

namespace rea::supervisor {

CommandLine::CommandLine(const char* command) : app("", command), command(command) {
  app.set_help_flag();
  app.add_option("files", files);
}

std::optional<int> CommandLine::parse(const std::vector<std::string>& args, size_t expectedFiles,
                                      const char* filesDescription) {
  // CLI11 consumes its argument vector from the back.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    return usageError(error.what(), command);
  }
  if (files.size() != expectedFiles) return usageError(filesDescription, command);
  return std::nullopt;
}

std::optional<int> CommandLine::count(const std::string& option, const std::string& text,
                                      int64_t& out) const {
  if (parseCount(text, out)) return std::nullopt;
  return usageError(option + " needs a non-negative integer", command);
}

}  // namespace rea::supervisor
