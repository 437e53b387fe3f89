#include "supervisor/file-hash.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "evidence/sha256.h"

namespace rea::supervisor {

std::optional<std::string> hashFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  evidence::Sha256 hash;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    hash.update(buffer.data(), static_cast<size_t>(n));
  }
  close(fd);
  return hash.finishHex();
}

}  // namespace rea::supervisor
