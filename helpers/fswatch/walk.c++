#include "helpers/fswatch/walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <kj/common.h>

#include "helpers/fswatch/lexical-path.h"

namespace rea::helper {
namespace {

using evidence::EntryType;
using evidence::SnapshotEntry;

// One entry to visit: how the *at() calls reach it and how it is named.
struct Place {
  int parentFd;        // directory holding it (AT_FDCWD for a root)
  const char* name;    // its name in that directory (the whole root path for a root)
  std::string fsPath;  // declared root + "/" + relative: for hashing and messages
  std::string rel;     // "." or "a/b/c"
};

class Walker {
 public:
  Walker(const SnapshotLimits& limits, const SnapshotHooks& hooks, WalkResult& out)
      : limits(limits), hooks(hooks), out(out) {}

  void walkRoot(size_t index, const std::string& root) {
    if (stopped()) return;
    alias = "root_" + std::to_string(index) + ":";
    rootNormalized = normalizePath(root);
    Place place{AT_FDCWD, root.c_str(), root, "."};
    if (!admit(place, 0)) return;
    EntryStat st = lstatAt(AT_FDCWD, root.c_str());
    if (st.error == ENOENT || st.error == ENOTDIR) return;  // a missing root adds nothing
    if (st.error != 0) return fail(place, "lstat", st.error);
    visit(place, 0, st);
  }

 private:
  const SnapshotLimits& limits;
  const SnapshotHooks& hooks;
  WalkResult& out;
  std::string alias;           // "root_<i>:"
  std::string rootNormalized;  // for symlink containment
  bool budgetSpent = false;    // the entry budget ran out: nothing more can be recorded
  std::vector<char> direntBuffer;

  bool stopped() const { return budgetSpent || out.failure.has_value(); }

  // The checks at the top of §6.9's visit(): cancellation, entry budget, depth.
  bool admit(const Place& place, uint64_t depth) {
    if (hooks.cancelled && hooks.cancelled()) {
      fail(place, "cancelled", ECANCELED);
      return false;
    }
    if (out.entries.size() >= limits.files) {
      out.truncated = true;
      budgetSpent = true;
      return false;
    }
    if (depth > limits.depth) {
      out.truncated = true;
      return false;
    }
    return true;
  }

  void fail(const Place& place, const char* operation, int error) {
    out.failure = SnapshotFailure{place.fsPath, alias + place.rel, operation, error};
  }

  void record(const Place& place, EntryType type, const EntryStat& st) {
    out.entries.push_back(
        SnapshotEntry{alias + place.rel, type, st.mode, st.size, std::nullopt, std::nullopt});
  }

  void visit(const Place& place, uint64_t depth, const EntryStat& st) {
    if (S_ISLNK(st.mode)) {
      visitSymlink(place, st);
    } else if (S_ISREG(st.mode)) {
      record(place, EntryType::FILE, st);
      size_t relOffset =
          place.rel == "." ? std::string::npos : place.fsPath.size() - place.rel.size();
      out.jobs.push_back(HashJob{out.entries.size() - 1, place.fsPath, relOffset, st});
    } else if (S_ISDIR(st.mode)) {
      record(place, EntryType::DIRECTORY, st);
      visitDirectory(place, depth, st);
    } else {
      record(place, EntryType::OTHER, st);
    }
  }

  void visitSymlink(const Place& place, const EntryStat& st) {
    std::string target;
    size_t capacity = std::max<size_t>(static_cast<size_t>(st.size) + 1, 256);
    for (;;) {
      target.resize(capacity);
      ssize_t n = readlinkat(place.parentFd, place.name, target.data(), capacity);
      if (n < 0) {
        int error = errno;
        if (!isRaceErrno(error)) return fail(place, "readlink", error);
        out.truncated = true;  // gone or no longer a symlink
        return;
      }
      if (static_cast<size_t>(n) < capacity) {
        target.resize(static_cast<size_t>(n));
        break;
      }
      capacity *= 2;
    }
    EntryStat again = lstatAt(place.parentFd, place.name);
    if (again.error != 0 && again.error != ENOENT) return fail(place, "lstat", again.error);
    if (again.error == ENOENT || !S_ISLNK(again.mode) || !sameInode(st, again)) {
      out.truncated = true;
      return;
    }
    std::string linkPath = joinPath(rootNormalized, place.rel);
    std::string resolved = resolveLexically(parentPath(linkPath), target);
    record(place, EntryType::SYMLINK, st);
    if (auto relative = rootRelative(rootNormalized, resolved)) {
      out.entries.back().symlinkTarget = std::move(*relative);
    } else {
      out.entries.back().symlinkTarget = evidence::OUTSIDE_DECLARED_ROOT;
      out.truncated = true;
    }
  }

  void visitDirectory(const Place& place, uint64_t depth, const EntryStat& st) {
    int fd;
    do {
      fd = openat(place.parentFd, place.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      int error = errno;
      if (!isRaceErrno(error)) return fail(place, "open", error);
      out.truncated = true;  // gone or replaced since lstat; the entry stays recorded
      return;
    }
    KJ_DEFER(close(fd));
    EntryStat opened = fstatFd(fd);
    if (opened.error != 0) return fail(place, "fstat", opened.error);
    if (!S_ISDIR(opened.mode) || !sameInode(st, opened)) {
      out.truncated = true;
      return;
    }

    std::vector<std::string> names;
    int error = readNames(fd, names);
    if (error == ENOENT) {  // removed while being listed
      out.truncated = true;
      return;
    }
    if (error != 0) return fail(place, "readdir", error);
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return evidence::comparePaths(a, b) < 0;
    });

    for (size_t k = 0; k < names.size(); ++k) {
      if (stopped()) return;
      Place child{fd, names[k].c_str(), childFsPath(place.fsPath, names[k]),
                  place.rel == "." ? names[k] : place.rel + "/" + names[k]};
      if (!admit(child, depth + 1)) continue;
      EntryStat childStat = lstatAt(fd, names[k].c_str());
      if (childStat.error == ENOENT) continue;  // vanished since readdir: silently absent
      if (childStat.error != 0) return fail(child, "lstat", childStat.error);
      visit(child, depth + 1, childStat);
    }
  }

  static std::string childFsPath(const std::string& dir, const std::string& name) {
    std::string path = dir;
    if (path.empty() || path.back() != '/') path.push_back('/');
    path += name;
    return path;
  }

  // All names of the open directory except "." and "..", in kernel order. Returns 0 or an errno.
  int readNames(int fd, std::vector<std::string>& names) {
    direntBuffer.resize(64 * 1024);
    for (;;) {
      ssize_t n = getdents64(fd, direntBuffer.data(), direntBuffer.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      if (n == 0) return 0;
      for (ssize_t pos = 0; pos < n;) {
        auto* entry = reinterpret_cast<struct dirent64*>(direntBuffer.data() + pos);
        pos += entry->d_reclen;
        const char* name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        names.emplace_back(name);
      }
    }
  }
};

}  // namespace

WalkResult walkRoots(const std::vector<std::string>& roots, const SnapshotLimits& limits,
                     const SnapshotHooks& hooks) {
  WalkResult result;
  Walker walker(limits, hooks, result);
  for (size_t i = 0; i < roots.size(); ++i)
    walker.walkRoot(i, roots[i]);
  return result;
}

}  // namespace rea::helper
