#pragma once
// Internal to helpers/fswatch: the I/O a snapshot needs, behind one interface with two
// implementations (plain syscalls in file-io.c++, io_uring in uring-io.c++). The walk (walk.c++)
// decides *what* to read in which order, lstat's every entry itself and owns every rule of SPEC
// B §6.9; a FileIo only answers "hash this file if it is still the one lstat saw".
//
// Errors: per-item errors are returned as errno values / HashOutcome::FAILED; a FileIo throws
// kj::Exception only when its own machinery breaks (an io_uring_enter failure).

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "helpers/fswatch/snapshot.h"

namespace rea::helper {

struct EntryStat {
  int error = 0;  // errno of the stat call; the fields below are valid only when it is 0
  uint32_t mode = 0;
  int64_t size = 0;
  uint64_t dev = 0;
  uint64_t ino = 0;
  int64_t mtimeSec = 0;
  int64_t mtimeNsec = 0;
};

EntryStat entryStatFrom(const struct stat& st);
EntryStat lstatAt(int dirFd, const char* name);
// fstatat(AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT): lstat relative to an open directory.
EntryStat fstatFd(int fd);

bool sameInode(const EntryStat& a, const EntryStat& b);
bool sameSizeAndMtime(const EntryStat& a, const EntryStat& b);

inline constexpr int HASH_OPEN_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
// O_NOFOLLOW: a file replaced by a symlink is never followed; O_NONBLOCK: one replaced by a FIFO
// does not block the open (fstat then sees it is no longer a regular file).

bool isRaceErrno(int error);
// Errors of an open/readlink meaning "the name no longer refers to what lstat saw" (ENOENT,
// ENOTDIR, ELOOP, ENXIO, ...): results of a concurrent change, not failures.

struct HashJob {
  size_t entryIndex;  // which Snapshot entry receives the hash
  std::string path;   // the path as walked (declared root + "/" + relative path)
  size_t relOffset;   // where the relative path starts in `path`; npos for a root itself
  EntryStat stat;     // what lstat saw during the walk
};

int openForHash(const HashJob& job);
// open(path, HASH_OPEN_FLAGS); a path too long for one call (ENAMETOOLONG, deep trees) is opened
// one name at a time from the root with O_NOFOLLOW, as the walk reached it. Returns the fd or
// -errno.

struct HashOutcome {
  enum Kind { HASHED, UNSTABLE, FAILED };
  Kind kind = UNSTABLE;
  std::string sha256;          // HASHED: 64 lowercase hex
  const char* operation = "";  // FAILED: which call failed
  int error = 0;               // FAILED: its errno

  static HashOutcome hashed(std::string sha256) { return {HASHED, std::move(sha256), "", 0}; }
  static HashOutcome unstable() { return {UNSTABLE, {}, "", 0}; }
  static HashOutcome failed(const char* operation, int error) {
    return {FAILED, {}, operation, error};
  }
};
// UNSTABLE: the file changed, vanished or was replaced between lstat and the end of reading; the
// entry is recorded without sha256 and the snapshot is truncated.

bool openedUnchanged(const EntryStat& walked, const EntryStat& opened);
// The opened fd is a regular file with the inode, size and mtime lstat saw.

class FileIo {
 public:
  virtual ~FileIo() noexcept(false) = default;

  virtual void startSnapshot() {}
  // Forgets everything about the previous snapshot's jobs (a FileIo serves many snapshots).

  virtual HashOutcome hash(const std::vector<HashJob>& jobs, size_t index, uint64_t budget,
                           const SnapshotHooks& hooks) = 0;
  // Hashes jobs[index] (open O_NOFOLLOW, fstat identity, read to the end, fstat again). Called in
  // increasing `index` order, with `budget` = the bytes still allowed (≥ the job's size).
  // Implementations may hash later jobs ahead of time, assuming every hash before them succeeds;
  // a later call for such a job returns the result computed then.
};

HashOutcome hashWithSyscalls(const HashJob& job, std::vector<char>& buffer,
                             const SnapshotHooks& hooks);
// The plain-syscall hash of one file with `buffer` (resized to 1 MiB if smaller) for reads.

inline constexpr uint64_t URING_SMALL_FILE_BYTES = 256 * 1024;
// Files up to this size are read by the io_uring FileIo in batches, one read request each.

std::unique_ptr<FileIo> newPlainFileIo();
std::unique_ptr<FileIo> newUringFileIo(bool streamLargeFiles, RingOpen ringOpen);
// nullptr when the ring cannot be set up (io_uring disabled by sysctl, filtered by seccomp, or
// too old a kernel for ring restrictions). `streamLargeFiles`: read files above
// URING_SMALL_FILE_BYTES through the ring too (block k+1 in an io-wq worker while block k is
// hashed); false hashes them with plain read() calls, which measured as fast or faster
// (bench/README.md). `ringOpen`: FORBIDDEN leaves OPENAT out of the ring's allowed operations
// and opens files with plain openat (see RingOpen).

}  // namespace rea::helper
