#include "helpers/common/standalone.h"

#include <errno.h>
#include <fcntl.h>
#include <kj/debug.h>
#include <kj/io.h>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>
#include <vector>

namespace rea::helper {

evidence::Json readJsonRequest(kj::StringPtr path) {
  KJ_CONTEXT("standalone request", path);
  int fd = STDIN_FILENO;
  kj::AutoCloseFd owned;
  if (path != "-") {
    KJ_SYSCALL(fd = open(path.cStr(), O_RDONLY | O_CLOEXEC), path);
    owned = kj::AutoCloseFd(fd);
  }
  std::string text;
  // On the heap: a 64 KiB stack array beside KJ_CONTEXT trips kj's "ExceptionCallback must be
  // allocated on the stack" check (it allows 64 KiB between the callback and the stack top).
  std::vector<char> buffer(65536);
  for (;;) {
    ssize_t n;
    KJ_SYSCALL(n = read(fd, buffer.data(), buffer.size()), path);
    if (n == 0) break;
    text.append(buffer.data(), size_t(n));
  }
  auto parsed = evidence::Json::parse(text, nullptr, /*allow_exceptions=*/false);
  KJ_REQUIRE(!parsed.is_discarded(), "request is not valid JSON", path);
  return parsed;
}

void JsonLines::write(const evidence::Json& value) {
  std::string line = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  kj::FdOutputStream(STDOUT_FILENO).write(line.data(), line.size());
}

}  // namespace rea::helper
