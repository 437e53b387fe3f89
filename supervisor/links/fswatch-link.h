#pragma once
// FswatchLink: the supervisor's one connection to the fswatch helper (rea-fswatch). Owns the
// helper process and its Cap'n Proto connection, and is the only supervisor code that reads
// schema/fswatch.capnp types: every snapshot is converted to evidence::SnapshotEntry values and
// checked on the way in (paths under a declared root alias, each root's first entry ".", no
// repeated path, no "." or ".." steps, depth and entry budget kept, file types matching the mode
// bits, SHA-256 only on files and within the byte budget, symlink targets only on symlinks and
// never absolute, truncation claimed whenever an entry shows it). A helper that breaks a rule is
// killed and reported as a fault, exactly like a helper that dies or does not answer (A13).
//
// Typical use (one link per capture, one event loop; the roots and limits are fixed):
//   FswatchLink link(io, roots, limits);
//   FswatchOutcome before = link.snapshot().wait(ws);   // snapshot, failure or lost
//   ...
//   link.finish().wait(ws);                             // helper gone
//
// Errors: the constructor throws FAILED when the roots or limits are out of range (B §3.1,
// §3.6). Afterwards nothing throws: a snapshot that could not read an entry is a
// FswatchOutcome::FAILURE (the capture fails, B §6.9), a lost helper is a FswatchOutcome::LOST
// with fault() set, and every promise resolves, never hangs.

#include <cstdint>
#include <kj/async-io.h>
#include <kj/time.h>
#include <optional>
#include <string>
#include <vector>

#include "evidence/file-effects.h"
#include "evidence/limits.h"
#include "supervisor/links/helper-process.h"

namespace rea::supervisor {

struct FswatchLimits {
  // limits.files, limits.file_bytes, limits.filesystem_depth (evidence/limits.h)
  uint64_t files = uint64_t(evidence::limit::FILES.defaultValue);
  uint64_t fileBytes = uint64_t(evidence::limit::FILE_BYTES.defaultValue);
  uint64_t depth = uint64_t(evidence::limit::FILESYSTEM_DEPTH.defaultValue);
};

struct FsSnapshot {
  std::vector<evidence::SnapshotEntry> entries;  // traversal order (B §4.7)
  bool truncated = false;
};

struct FsFailure {
  // The helper could not read an entry: the capture fails with a structured error (B §6.9).
  std::string path;       // filesystem path as walked
  std::string entry;      // `root_<i>:<relative>`
  std::string operation;  // "lstat", "open", "fstat", "readdir", "readlink", "read"
  int error = 0;          // errno
};

struct FswatchOutcome {
  enum class Kind { SNAPSHOT, FAILURE, LOST };
  Kind kind = Kind::LOST;
  FsSnapshot snapshot;  // SNAPSHOT
  FsFailure failure;    // FAILURE
  uint64_t atNs = 0;    // CLOCK_MONOTONIC when the answer arrived (or the loss was noticed)
};

class FswatchLink {
 public:
  FswatchLink(kj::AsyncIoContext& io, std::vector<std::string> roots, FswatchLimits limits,
              std::string helperDirectory = defaultHelperDirectory(),
              kj::Duration deadline = 120 * kj::SECONDS);
  // `roots`: the scenario's filesystem_roots (≤16, absolute), aliases root_0, ... in order.
  // `deadline`: how long one snapshot may take before the helper counts as not answering.
  // The helper is spawned by the first snapshot().

  ~FswatchLink() noexcept(false);
  // Kills the helper if it still runs.

  KJ_DISALLOW_COPY(FswatchLink);

  kj::Promise<FswatchOutcome> snapshot(bool final = false);
  // One snapshot. Calls are queued: each request is sent only once the previous one was answered
  // (B §6.10: snapshots are serialised in order). After a loss every call resolves LOST at once.
  // `final`: the after_settlement snapshot, the last one (the helper's fault moments use it).

  kj::Promise<void> finish();
  // Waits for queued snapshots, then drops the connection and reaps the helper. Resolves (never
  // rejects) once it is gone. Call once; snapshot() afterwards resolves LOST.

  kj::Maybe<const HelperFault&> fault() const;
  // Set once the helper was lost: "the fswatch helper crashed with signal 9 (SIGKILL) during a
  // snapshot", "... sent a malformed snapshot (...) and was stopped", "... did not answer ...".

  kj::Maybe<pid_t> helperPid() const;
  // The helper's pid while it runs (tests kill it).

  class Impl;

 private:
  kj::Own<Impl> impl;
};

std::string fsFailureMessage(const FsFailure& failure);
// One sentence for the capture error: "A filesystem snapshot could not read root_0:locked
// (readdir: Permission denied)." The entry path is printed lossily as UTF-8; the absolute path
// is not included (it would not be normalised).

}  // namespace rea::supervisor
