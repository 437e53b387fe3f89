#pragma once
// The capture's private temporary root (SPEC B §6.1, §6.2): `<$TMPDIR or /tmp>/rea-process-XXXXXX`
// (mkdtemp, mode 0700) holding `home/` (the target's HOME) and `shims/`. The object owns the
// directory: its destructor removes it recursively, so a root never outlives the capture on any
// path (success, error, exception). `remove()` does the same explicitly and reports failure.
//
// Errors: the constructor throws kj::Exception (FAILED) naming the path when the directory
// cannot be created; remove() throws when something stays behind.

#include <string>

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

 private:
  std::string rootPath;
  bool removed = false;
};

void removeTree(const std::string& path);
// Recursive removal that never follows symlinks and treats "already gone" as success.
// Throws kj::Exception naming the first entry that could not be removed.

}  // namespace rea::supervisor
