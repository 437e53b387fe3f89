#include "helpers/fswatch/file-io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <kj/common.h>

#include "evidence/sha256.h"

namespace rea::helper {

EntryStat entryStatFrom(const struct stat& st) {
  EntryStat out;
  out.mode = st.st_mode;
  out.size = st.st_size;
  out.dev = st.st_dev;
  out.ino = st.st_ino;
  out.mtimeSec = st.st_mtim.tv_sec;
  out.mtimeNsec = st.st_mtim.tv_nsec;
  return out;
}

EntryStat lstatAt(int dirFd, const char* name) {
  struct stat st;
  if (fstatat(dirFd, name, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) != 0) {
    EntryStat failed;
    failed.error = errno;
    return failed;
  }
  return entryStatFrom(st);
}

EntryStat fstatFd(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    EntryStat failed;
    failed.error = errno;
    return failed;
  }
  return entryStatFrom(st);
}

bool sameInode(const EntryStat& a, const EntryStat& b) {
  return a.dev == b.dev && a.ino == b.ino;
}

bool sameSizeAndMtime(const EntryStat& a, const EntryStat& b) {
  return a.size == b.size && a.mtimeSec == b.mtimeSec && a.mtimeNsec == b.mtimeNsec;
}

bool isRaceErrno(int error) {
  switch (error) {
    case ENOENT:   // removed
    case ENOTDIR:  // a directory on the way was replaced by something else
    case ELOOP:    // replaced by a symlink (O_NOFOLLOW)
    case ENXIO:    // replaced by a socket or a FIFO without writer
    case ENODEV:   // replaced by a device node without driver
    case EINVAL:   // readlink: no longer a symlink
      return true;
    default:
      return false;
  }
}

bool openedUnchanged(const EntryStat& walked, const EntryStat& opened) {
  return opened.error == 0 && S_ISREG(opened.mode) && sameInode(walked, opened) &&
         sameSizeAndMtime(walked, opened);
}

namespace {

int openRetrying(int dirFd, const char* name, int flags) {
  int fd;
  do {
    fd = openat(dirFd, name, flags);
  } while (fd < 0 && errno == EINTR);
  return fd < 0 ? -errno : fd;
}

}  // namespace

int openForHash(const HashJob& job) {
  int fd = openRetrying(AT_FDCWD, job.path.c_str(), HASH_OPEN_FLAGS);
  if (fd != -ENAMETOOLONG || job.relOffset == std::string::npos) return fd;
  std::string root = job.path.substr(0, job.relOffset);
  int dir = openRetrying(AT_FDCWD, root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (size_t pos = job.relOffset; dir >= 0;) {
    size_t slash = job.path.find('/', pos);
    std::string name = job.path.substr(pos, slash == std::string::npos ? slash : slash - pos);
    int next = slash == std::string::npos
                   ? openRetrying(dir, name.c_str(), HASH_OPEN_FLAGS)
                   : openRetrying(dir, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(dir);
    if (slash == std::string::npos) return next;
    dir = next;
    pos = slash + 1;
  }
  return dir;
}

HashOutcome hashWithSyscalls(const HashJob& job, std::vector<char>& buffer,
                             const SnapshotHooks& hooks) {
  constexpr size_t BUFFER_BYTES = 1 << 20;
  if (buffer.size() < BUFFER_BYTES) buffer.resize(BUFFER_BYTES);

  int fd = openForHash(job);
  if (fd < 0) {
    return isRaceErrno(-fd) ? HashOutcome::unstable() : HashOutcome::failed("open", -fd);
  }
  KJ_DEFER(close(fd));

  EntryStat first = fstatFd(fd);
  if (first.error != 0) return HashOutcome::failed("fstat", first.error);
  if (!openedUnchanged(job.stat, first)) return HashOutcome::unstable();

  // Read to the end, asking for one byte more than the size in total: getting it means the file
  // grew. A short read that ends exactly at the size is the end of the file (confirmed below
  // by the unchanged size); a short read before it is retried until read() returns 0.
  auto size = static_cast<uint64_t>(job.stat.size);
  uint64_t total = 0;
  evidence::Sha256 sha;
  for (;;) {
    size_t request = static_cast<size_t>(std::min<uint64_t>(buffer.size(), size + 1 - total));
    ssize_t n = read(fd, buffer.data(), request);
    if (n < 0) {
      if (errno == EINTR) continue;
      return HashOutcome::failed("read", errno);
    }
    if (hooks.afterRead) hooks.afterRead(job.path);
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > size) return HashOutcome::unstable();
    sha.update(buffer.data(), static_cast<size_t>(n));
    if (total == size && static_cast<size_t>(n) < request) break;
  }
  if (total != size) return HashOutcome::unstable();

  EntryStat last = fstatFd(fd);
  if (last.error != 0) return HashOutcome::failed("fstat", last.error);
  if (!sameSizeAndMtime(first, last)) return HashOutcome::unstable();
  return HashOutcome::hashed(sha.finishHex());
}

namespace {

class PlainFileIo final : public FileIo {
 public:
  HashOutcome hash(const std::vector<HashJob>& jobs, size_t index, uint64_t,
                   const SnapshotHooks& hooks) override {
    return hashWithSyscalls(jobs[index], buffer, hooks);
  }

 private:
  std::vector<char> buffer;
};

}  // namespace

std::unique_ptr<FileIo> newPlainFileIo() {
  return std::make_unique<PlainFileIo>();
}

}  // namespace rea::helper
