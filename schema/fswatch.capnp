@0xc4a1f2e36b9d5a17;
# The fswatch helper (helpers/fswatch, binary rea-fswatch): takes filesystem snapshots of the
# scenario's declared roots (SPEC B §6.9). It only walks and hashes; the supervisor decides when
# (checkpoints, B §6.10) and computes the effects between snapshots.
#
# Runs in rea-fswatch; the supervisor's FswatchLink (supervisor/links/fswatch-link.c++) is the only
# caller and the only reader of these types on the supervisor side. Everything the helper sends
# is a claim: FswatchLink checks every entry (paths under a declared root alias, types matching
# the mode bits, hashes only on files and within the byte budget, the entry budget, the depth)
# and stops a helper that breaks a rule.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("rea::schema");

interface Fswatch {
  # Bootstrap capability of rea-fswatch.

  snapshot @0 (roots :List(Data), limits :SnapshotLimits, final :Bool) -> (result :SnapshotResult);
  # One snapshot of `roots` (absolute paths, at most 16; aliases root_0, root_1, ... in order).
  # The helper walks while the call is in progress and answers nothing else meanwhile: the
  # supervisor sends one snapshot at a time (its checkpoints are serialised anyway). The helper
  # keeps its I/O machinery (an io_uring ring) from one call to the next. `final` marks the
  # `after_settlement` snapshot, the supervisor's last call: the helper only uses it for the
  # test-only fault moments "settle" and "stop" (helpers/common/fault-injection.h).
}

struct SnapshotLimits {
  files @0 :UInt64;
  # `limits.files` (1-100000): entries recorded over all roots.
  fileBytes @1 :UInt64;
  # `limits.file_bytes` (1-100000000): bytes of successfully hashed files over all roots.
  depth @2 :UInt64;
  # `limits.filesystem_depth` (1-64): the root is depth 0.
}

struct SnapshotResult {
  union {
    snapshot @0 :Snapshot;
    failure @1 :SnapshotFailure;
    # An entry could not be read (EACCES, EIO, ...): the capture fails (B §6.9).
  }
}

struct Snapshot {
  entries @0 :List(Entry);
  # Traversal order: each root depth first in pre-order, names in UTF-16 code-unit order.
  truncated @1 :Bool;
  # A budget, the depth limit, a race or an outside symlink target truncated the snapshot.
  usedUring @2 :Bool;
  # io_uring did part of the work (for diagnostics only).
  writeLock @3 :Text;
  # "landlock ABI <n>": Landlock refuses every write, so io_uring may open files; or
  # "no landlock: <why>": files are opened with plain openat (seccomp-checked), and only
  # statx/read/close go through the ring (for diagnostics only).
}

struct Entry {
  path @0 :Data;
  # `root_<i>:<relative>`; the relative part holds the name bytes as the filesystem gave them.
  type @1 :EntryType;
  mode @2 :UInt32;
  # Full st_mode from lstat, file-type bits included.
  size @3 :Int64;
  # lstat st_size.
  sha256 @4 :Text;
  # 64 lowercase hex digits for a hashed regular file; empty when not hashed.
  symlinkTarget @5 :Data;
  # Symlinks only: the root-relative target, "." or "<outside-declared-root>"; empty otherwise.
}

enum EntryType {
  file @0;
  directory @1;
  symlink @2;
  other @3;
}

struct SnapshotFailure {
  path @0 :Data;
  # The filesystem path that could not be read (bytes, as walked).
  entry @1 :Data;
  # The same place as an entry path, `root_<i>:<relative>`.
  operation @2 :Text;
  # "lstat", "open", "fstat", "readdir", "readlink", "read" or "cancelled".
  error @3 :Int32;
  # The errno.
}
