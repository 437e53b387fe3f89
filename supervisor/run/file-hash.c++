#include "supervisor/run/file-hash.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "evidence/sha256.h"

namespace rea::supervisor {

std::optional<std::string> hashFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  evidence::Sha256 hash;
  // Uninitialised on purpose: zero-filling a large buffer costs a page fault per 4 KiB, which
  // for a small executable is most of the hashing time (bench/README.md, capture-bench).
  const size_t BUFFER_SIZE = 64 * 1024;
  std::unique_ptr<char[]> buffer(new char[BUFFER_SIZE]);
  for (;;) {
    ssize_t n = read(fd, buffer.get(), BUFFER_SIZE);
    if (n < 0) {
      if (errno == EINTR) continue;
      close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    hash.update(buffer.get(), static_cast<size_t>(n));
  }
  close(fd);
  return hash.finishHex();
}

}  // namespace rea::supervisor
