#include "supervisor/cli/output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/utf.h"
#include "supervisor/cli/json-write.h"

namespace rea::supervisor {
namespace {

bool writeAll(int fd, std::string_view text) {
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

// A stream buffer that writes to a file descriptor in 64 KiB pieces and remembers a failure.
class FdBuffer final : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd(fd), buffer(64 * 1024) {
    setp(buffer.data(), buffer.data() + buffer.size());
  }
  bool failed = false;

 protected:
  int overflow(int c) override {
    if (!flushBuffer()) return traits_type::eof();
    if (c != traits_type::eof()) sputc(static_cast<char>(c));
    return traits_type::not_eof(c);
  }
  int sync() override { return flushBuffer() ? 0 : -1; }

 private:
  int fd;
  std::vector<char> buffer;

  bool flushBuffer() {
    size_t size = static_cast<size_t>(pptr() - pbase());
    if (size > 0 && !failed && !writeAll(fd, std::string_view(pbase(), size))) failed = true;
    setp(buffer.data(), buffer.data() + buffer.size());
    return !failed;
  }
};

bool allUtf8(const evidence::Json& value) {
  // The only way serialising can throw (nlohmann's strict handler) is a string that is not
  // UTF-8; checked on the whole document before its first byte is written.
  if (value.is_string()) return evidence::isValidUtf8(value.get_ref<const std::string&>());
  if (value.is_array()) {
    for (const auto& element : value) {
      if (!allUtf8(element)) return false;
    }
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!evidence::isValidUtf8(it.key()) || !allUtf8(*it)) return false;
    }
  }
  return true;
}

}  // namespace

bool writeJson(int fd, const evidence::Json& value, bool pretty) {
  if (!pretty) {
    // The compact form, as dump() writes it but faster (json-write.h), in 64 KiB writes.
    bool failed = false;
    writeCompactJson(value, [fd, &failed](std::string_view piece) {
      if (!failed && !writeAll(fd, piece)) failed = true;
    });
    return !failed && writeAll(fd, "\n");
  }
  FdBuffer buffer(fd);
  std::ostream out(&buffer);
  out << std::setw(2) << value << '\n';
  out.flush();
  return !buffer.failed;
}

int printJson(const evidence::Json& value, bool pretty) {
  // Streamed: a large capture is never held a second time as one string. Serialising cannot
  // fail half-way (allUtf8 ran first), so the document is written in full or not at all.
  if (!allUtf8(value)) {
    writeAll(STDERR_FILENO, "rea: the result is not valid UTF-8 and was not printed\n");
    return 1;
  }
  if (!writeJson(STDOUT_FILENO, value, pretty)) {
    writeAll(STDERR_FILENO, "rea: could not write the result to standard output\n");
    return 1;
  }
  return 0;
}

int writeJsonFile(const std::string& path, const evidence::Json& value, bool pretty) {
  if (!allUtf8(value)) {
    writeAll(STDERR_FILENO, "rea: the result is not valid UTF-8 and was not written\n");
    return 1;
  }
  // Written next to the target and renamed over it: a reader never sees half a document, and
  // a failure leaves any earlier file of that name as it was.
  std::string temporary = path + ".rea-" + std::to_string(getpid()) + ".tmp";
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  bool written = fd >= 0 && writeJson(fd, value, pretty) && fsync(fd) == 0;
  if (fd >= 0 && close(fd) != 0) written = false;
  if (written && rename(temporary.c_str(), path.c_str()) == 0) return 0;
  int failure = errno;
  if (fd >= 0) unlink(temporary.c_str());
  // The path is the user's own argument, but it is not repeated: a path may carry a secret.
  writeAll(STDERR_FILENO, "rea: could not write the result to the -o file (" +
                              std::string(std::strerror(failure)) + ")\n");
  return 1;
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
