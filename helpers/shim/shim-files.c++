#include "helpers/shim/shim-files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <kj/debug.h>
#include <kj/io.h>

namespace rea::helper {
namespace {

void writeAll(int fd, const char* data, size_t size, const std::string& name) {
  while (size > 0) {
    ssize_t n;
    KJ_SYSCALL(n = write(fd, data, size), "shim file", name);
    data += n;
    size -= size_t(n);
  }
}

// Copies `size` bytes from the start of `from` into `to` (both at offset 0): in the kernel when
// it can (copy_file_range), else through a buffer.
void copyContents(int from, int to, size_t size, const std::string& name) {
  loff_t inOffset = 0;
  size_t copied = 0;
  while (copied < size) {
    ssize_t n = copy_file_range(from, &inOffset, to, nullptr, size - copied, 0);
    if (n > 0) {
      copied += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    KJ_REQUIRE(n < 0, "shim client binary shrank while being copied", name);
    KJ_REQUIRE(errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP,
               "copy_file_range failed", name, strerror(errno));
    break;  // copy the rest by hand
  }
  char buffer[65536];
  while (copied < size) {
    ssize_t n;
    KJ_SYSCALL(n = pread(from, buffer, kj::min(sizeof(buffer), size - copied), loff_t(copied)),
               "shim client binary");
    KJ_REQUIRE(n > 0, "shim client binary shrank while being copied", name);
    writeAll(to, buffer, size_t(n), name);
    copied += size_t(n);
  }
}

}  // namespace

void writeShimExecutables(const std::string& shimsDir, const std::vector<std::string>& names,
                          const std::string& clientBinaryPath) {
  int clientFd;
  KJ_SYSCALL(clientFd = open(clientBinaryPath.c_str(), O_RDONLY | O_CLOEXEC), "shim client",
             clientBinaryPath);
  kj::AutoCloseFd client(clientFd);
  struct stat clientStat;
  KJ_SYSCALL(fstat(clientFd, &clientStat), clientBinaryPath);
  KJ_REQUIRE(S_ISREG(clientStat.st_mode), "shim client is not a regular file", clientBinaryPath);

  int dirFd;
  KJ_SYSCALL(dirFd = open(shimsDir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), "shims dir",
             shimsDir);
  kj::AutoCloseFd dir(dirFd);

  for (const std::string& name : names) {
    KJ_CONTEXT("shim executable", shimsDir, name);
    KJ_REQUIRE(!name.empty() && name != "." && name != ".." &&
                   name.find('/') == std::string::npos && name.find('\0') == std::string::npos,
               "not a plain file name");
    int fd;
    KJ_SYSCALL(fd = openat(dirFd, name.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700),
               "shim executable", shimsDir, name);
    kj::AutoCloseFd file(fd);
    // The umask may have cleared bits of 0700; the mode is part of the contract.
    KJ_SYSCALL(fchmod(fd, 0700));
    copyContents(clientFd, fd, size_t(clientStat.st_size), name);
    int closing = file.release();
    KJ_SYSCALL(close(closing));
  }
}

}  // namespace rea::helper
