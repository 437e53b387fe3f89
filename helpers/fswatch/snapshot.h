#pragma once
// The fswatch helper's job: one filesystem snapshot of the declared roots (SPEC B §6.9). Walks
// each root depth first in pre-order (names in UTF-16 code-unit order), records every entry with
// lstat data, never follows a symlink, and hashes regular files with SHA-256 while the global
// byte budget allows. It only reads: no write, no chmod, nothing outside the roots' trees except
// the lexical (string-only) resolution of symlink targets.
//
// Two I/O backends give identical results: plain syscalls, and io_uring batches (openat, read
// and close of many small files per submission, and reading the next block of a large file while
// the current one is hashed; lstat and fstat stay plain calls in both).
//
// Errors: races are results, not errors: an entry that vanishes after its directory was read is
// skipped; one that changes identity or content while being read is recorded without its hash
// (or without its children) and marks the snapshot truncated. Anything else the walk cannot read
// (EACCES, EIO, ...) and cancellation end the snapshot with a SnapshotFailure naming the path, the
// operation and the errno. Exceptions only for broken invariants (an io_uring ring that fails).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "evidence/file-effects.h"
#include "evidence/limits.h"

namespace rea::helper {

struct SnapshotLimits {
  // Defaults and ranges: evidence/limits.h.
  // `limits.files`: entries recorded over all roots
  uint64_t files = uint64_t(evidence::limit::FILES.defaultValue);
  // `limits.file_bytes`: bytes of successfully hashed files
  uint64_t fileBytes = uint64_t(evidence::limit::FILE_BYTES.defaultValue);
  // `limits.filesystem_depth`: the root is depth 0
  uint64_t depth = uint64_t(evidence::limit::FILESYSTEM_DEPTH.defaultValue);
};

enum class SnapshotBackend {
  AUTO,   // what measured fastest (bench/README.md): plain syscalls for small trees (a ring
          // costs milliseconds to set up); io_uring batches for the open/read/close of many
          // small files (256 or more in a snapshot), or whenever the Snapshotter already has a
          // ring; plain read() for files over 256 KiB
  PLAIN,  // plain syscalls only
  URING,  // io_uring for everything, large files included; plain when no ring can be set up
};

const char* snapshotBackendName(SnapshotBackend backend);  // "auto", "plain", "uring"

enum class RingOpen {
  // Whether the io_uring backend may open files through the ring. IORING_OP_OPENAT bypasses
  // seccomp and cannot be limited to read-only flags, so the helper allows it only once Landlock
  // refuses every write (write-lock.h); FORBIDDEN opens with plain openat, which its seccomp
  // filter checks, and batches the rest. Outside the helper (tests, benchmarks) nothing is
  // filtered and ALLOWED is the default.
  ALLOWED,
  FORBIDDEN,
};

struct Snapshot {
  std::vector<evidence::SnapshotEntry> entries;  // traversal order (§4.7)
  bool truncated = false;
  SnapshotBackend backendUsed = SnapshotBackend::PLAIN;  // URING if io_uring did any of it
};

struct SnapshotFailure {
  std::string path;       // the filesystem path that could not be read (bytes, as walked)
  std::string entry;      // the same place as an entry path, `root_<i>:<relative>`
  std::string operation;  // "lstat", "open", "fstat", "readdir", "readlink", "read", "cancelled"
  int error = 0;          // the errno (ECANCELED for cancellation)

  std::string message() const;
  // "snapshot failed: cannot readdir /x/locked (root_0:locked): Permission denied".
};

using SnapshotResult = std::variant<Snapshot, SnapshotFailure>;

struct SnapshotHooks {
  std::function<bool()> cancelled;
  // Polled before each entry and each hash; returning true ends the snapshot with a
  // SnapshotFailure{operation: "cancelled", error: ECANCELED}.

  std::function<void(const std::string& path)> afterRead;
  // Test seam: called after each read of a file being hashed (path as walked), before the
  // final fstat that decides whether the file stayed unchanged. Production code leaves it empty.
};

class FileIo;

class Snapshotter {
  // Takes snapshots, one at a time, keeping its I/O machinery (the io_uring ring and its
  // buffers) from one snapshot to the next: a capture takes several (before, checkpoints,
  // after), and setting up a ring costs more than a whole snapshot of a small tree.
 public:
  explicit Snapshotter(SnapshotBackend backend = SnapshotBackend::AUTO,
                       RingOpen ringOpen = RingOpen::ALLOWED);
  ~Snapshotter() noexcept(false);
  Snapshotter(const Snapshotter&) = delete;
  Snapshotter& operator=(const Snapshotter&) = delete;

  SnapshotResult take(const std::vector<std::string>& roots, const SnapshotLimits& limits,
                      const SnapshotHooks& hooks = {});
  // Snapshots `roots` in order as aliases root_0, root_1, ... with one entry budget and one
  // hash byte budget shared by all roots. A missing root contributes nothing and does not
  // truncate. The roots are the scenario's strings (absolute); symlink containment is decided on
  // their lexically normalised form. Blocks until done; call from a thread that may block.

 private:
  SnapshotBackend backend;
  RingOpen ringOpen;
  std::unique_ptr<FileIo> plain;
  std::unique_ptr<FileIo> uring;
  bool uringUnavailable = false;

  FileIo& plainIo();
  FileIo* uringIo();  // nullptr when no ring can be set up
};

SnapshotResult takeSnapshot(const std::vector<std::string>& roots, const SnapshotLimits& limits,
                            SnapshotBackend backend = SnapshotBackend::AUTO,
                            const SnapshotHooks& hooks = {}, RingOpen ringOpen = RingOpen::ALLOWED);
// One snapshot with a fresh Snapshotter.

bool uringAvailable();
// True when an io_uring ring can be created here (not disabled by sysctl, seccomp or rlimits).

}  // namespace rea::helper
