#pragma once
// Parsing one command's arguments (CLI11): the conventions people expect of a Unix tool —
// `--opt value` and `--opt=value`, `-o FILE` and `-oFILE`, `--` ending the options, `-` as a
// file name (standard input) — and one short usage error (exit 2) that names the problem and
// points at `rea COMMAND --help` instead of printing the whole help.
//
// `--help` is answered by cli.c++ before a command runs, so the parser here has no help flag.
//
// Errors: none thrown; a parse failure is printed on stderr and returned as exit code 2.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace rea::supervisor {

class CommandLine {
 public:
  explicit CommandLine(const char* command);
  CLI::App app;

  std::vector<std::string> files;
  // The positional arguments, in order (registered by the constructor).

  std::optional<int> parse(const std::vector<std::string>& args, size_t expectedFiles,
                           const char* filesDescription);
  // nullopt when the arguments parsed and exactly `expectedFiles` positional arguments were
  // given; otherwise the usage error was printed and the exit code (2) is returned.

  std::optional<int> count(const std::string& option, const std::string& text, int64_t& out) const;
  // An option's value that must be a non-negative decimal integer (parseCount); a usage error
  // (exit code 2) otherwise.

 private:
  const char* command;
};

}  // namespace rea::supervisor
