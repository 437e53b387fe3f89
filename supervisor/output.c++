#include "supervisor/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace rea::supervisor {
namespace {

bool writeAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

int printJson(const evidence::Json& value, bool pretty) {
  // Serialise completely before writing so an exception can never leave half a document.
  std::string text = value.dump(pretty ? 2 : -1);
  text.push_back('\n');
  if (!writeAll(STDOUT_FILENO, text)) {
    writeAll(STDERR_FILENO, "rea: could not write the result to standard output\n");
    return 1;
  }
  return 0;
}

int printText(const std::string& text) {
  if (!writeAll(STDOUT_FILENO, text)) {
    writeAll(STDERR_FILENO, "rea: could not write the result to standard output\n");
    return 1;
  }
  return 0;
}

int printError(const evidence::CommandError& error, bool pretty) {
  printJson(error.toJson(), pretty);
  writeAll(STDERR_FILENO, error.summary() + "\n");
  return 1;
}

}  // namespace rea::supervisor
