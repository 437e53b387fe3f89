#pragma once
// The capture's private temporary root (SPEC B §6.1, §6.2): `<$TMPDIR or /tmp>/rea-process-XXXXXX`
// (mkdtemp, mode 0700) holding `home/` (the target's HOME) and `shims/`. The object owns the
// directory: its destructor removes it recursively, so a root never outlives the capture on any
// path (success, error, exception). `remove()` does the same explicitly and reports failure.
//
// A live capture holds an exclusive flock on `<root>/.rea-owner` for its whole life (the fd is
// close-on-exec, so neither helpers nor the target inherit it), and that file holds the owner
// record (OWNER_RECORD, then `pid <n>`). A root whose lock can be taken has no live owner:
// `rea doctor --clean` (and each new capture) removes such stale roots left by a supervisor
// that was SIGKILLed — but only when they prove rea made them for this user (issue 18.6): the
// directory and the owner file belong to our effective uid, the directory's mode is 0700, and
// the file starts with the owner record. Any other rea-process-* directory (someone's own, a
// look-alike, one without a record) is left alone and named by `rea doctor` as not ours.
//
// Errors: the constructor throws kj::Exception (FAILED) naming the path when the directory
// cannot be created; remove() throws when something stays behind.

#include <optional>
#include <string>
#include <vector>

namespace rea::supervisor {

class TempRoot {
 public:
  TempRoot();
  ~TempRoot() noexcept(false);
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::string& path() const { return rootPath; }
  std::string homePath() const { return rootPath + "/home"; }
  std::string shimsPath() const { return rootPath + "/shims"; }

  void remove();
  // Removes the tree now (idempotent). Throws if it could not be removed completely.

  std::optional<std::string> tryRemove();
  // remove() as the release of a capture reports it (B §6.6.3 step 7): nullopt once the tree is
  // gone, else the cleanup failure "temporary process root cleanup failed (<cause>)", the cause
  // being what stayed behind and why (the exception's description, this root's path written
  // <temporary-root>) so that the user learns what to remove.

 private:
  std::string rootPath;
  int ownerLockFd = -1;
  bool removed = false;
};

std::string tempRootBase();
// <$TMPDIR or /tmp>, without a trailing slash.

constexpr char OWNER_RECORD[] = "rea temporary root v1\n";

struct StaleTempRoots {
  std::vector<std::string> found;    // roots with no live owner
  std::vector<std::string> notOurs;  // rea-process-* directories rea did not make: left alone
  std::vector<std::string> removed;  // of those, removed by this call (when asked to)
  std::vector<std::string> failed;   // could not be removed
};

StaleTempRoots findStaleTempRoots(bool remove);
// Scans tempRootBase() for rea-process-* directories whose owner lock is free and whose owner
// record proves they are ours (see above); the others go to `notOurs`, never removed.

void removeTree(const std::string& path);
// Recursive removal that never follows symlinks and treats "already gone" as success.
// Throws kj::Exception naming the first entry that could not be removed.

}  // namespace rea::supervisor
