#include "supervisor/links/fswatch-batch.h"

#include <sys/stat.h>

#include <set>

#include "evidence/utf.h"
#include "supervisor/links/helper-message.h"
#include "helpers/common/capnp-bytes.h"

namespace rea::supervisor {

using helper::textOf;

namespace {

bool isLowerHex64(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// "a/b/c": non-empty steps, none "." or "..". Returns the number of steps, or -1.
int relativeSteps(const std::string& rel) {
  if (rel.empty() || rel.front() == '/' || rel.back() == '/') return -1;
  int steps = 0;
  size_t start = 0;
  for (;;) {
    size_t end = rel.find('/', start);
    std::string step = rel.substr(start, end == std::string::npos ? end : end - start);
    if (step.empty() || step == "." || step == ".." || step.find('\0') != std::string::npos) {
      return -1;
    }
    ++steps;
    if (end == std::string::npos) return steps;
    start = end + 1;
  }
}

// Splits "root_<i>:<rel>"; false when it is not of that form with i < rootCount.
bool splitEntryPath(const std::string& path, size_t rootCount, size_t& index, std::string& rel) {
  if (path.compare(0, 5, "root_") != 0) return false;
  size_t colon = path.find(':');
  if (colon == std::string::npos || colon == 5 || colon > 7) return false;
  index = 0;
  for (size_t i = 5; i < colon; ++i) {
    if (path[i] < '0' || path[i] > '9') return false;
    index = index * 10 + size_t(path[i] - '0');
  }
  if (colon - 5 > 1 && path[5] == '0') return false;
  if (index >= rootCount) return false;
  rel = path.substr(colon + 1);
  return true;
}

evidence::EntryType entryTypeFrom(schema::EntryType type, bool& known) {
  known = true;
  switch (type) {
    case schema::EntryType::FILE:
      return evidence::EntryType::FILE;
    case schema::EntryType::DIRECTORY:
      return evidence::EntryType::DIRECTORY;
    case schema::EntryType::SYMLINK:
      return evidence::EntryType::SYMLINK;
    case schema::EntryType::OTHER:
      return evidence::EntryType::OTHER;
  }
  known = false;
  return evidence::EntryType::OTHER;
}

bool modeMatches(evidence::EntryType type, uint32_t mode) {
  switch (type) {
    case evidence::EntryType::FILE:
      return S_ISREG(mode);
    case evidence::EntryType::DIRECTORY:
      return S_ISDIR(mode);
    case evidence::EntryType::SYMLINK:
      return S_ISLNK(mode);
    case evidence::EntryType::OTHER:
      return !S_ISREG(mode) && !S_ISDIR(mode) && !S_ISLNK(mode) && (mode & S_IFMT) != 0;
  }
  return false;
}

const std::set<std::string> OPERATIONS = {"lstat",    "open", "fstat",    "readdir",
                                          "readlink", "read", "cancelled"};

// Checks one answered snapshot against the request (B §6.9). Returns the broken rule, or null;
// the caller names it an invalid snapshot.
kj::Maybe<BrokenRule> checkSnapshot(schema::Snapshot::Reader in, size_t rootCount,
                                    const FswatchLimits& limits, FsSnapshot& out) {
  auto entries = in.getEntries();
  if (entries.size() > limits.files) return BrokenRule{"more entries than limits.files"};
  std::set<std::string> seen;
  uint64_t hashedBytes = 0;
  bool truncationShown = false;  // an entry proves the snapshot was truncated
  size_t lastRoot = 0;
  bool anyEntry = false;
  out.entries.reserve(entries.size());
  for (auto entry : entries) {
    evidence::SnapshotEntry e;
    e.path = textOf(entry.getPath());
    size_t root;
    std::string rel;
    if (!splitEntryPath(e.path, rootCount, root, rel))
      return BrokenRule{"an entry outside the roots"};
    if (anyEntry && root < lastRoot) return BrokenRule{"roots out of order"};
    bool newRoot = !anyEntry || root != lastRoot;
    anyEntry = true;
    lastRoot = root;
    if (newRoot != (rel == ".")) return BrokenRule{"a root that does not start with \".\""};
    if (rel != ".") {
      int steps = relativeSteps(rel);
      if (steps < 0) return BrokenRule{"a malformed relative path"};
      if (uint64_t(steps) > limits.depth) return BrokenRule{"an entry deeper than the limit"};
    }
    if (!seen.insert(e.path).second) return BrokenRule{"a repeated path"};
    bool known;
    e.type = entryTypeFrom(entry.getType(), known);
    if (!known) return BrokenRule{"an unknown entry type"};
    uint32_t mode = entry.getMode();
    if (!modeMatches(e.type, mode)) return BrokenRule{"a type that contradicts the mode"};
    e.mode = mode;
    e.size = entry.getSize();
    if (e.size < 0) return BrokenRule{"a negative size"};
    std::string sha = entry.getSha256().cStr();
    if (!sha.empty()) {
      if (e.type != evidence::EntryType::FILE) return BrokenRule{"a hash on something not a file"};
      if (!isLowerHex64(sha)) return BrokenRule{"a malformed sha256"};
      hashedBytes += uint64_t(e.size);
      if (hashedBytes > limits.fileBytes) return BrokenRule{"more hashed bytes than the budget"};
      e.sha256 = kj::mv(sha);
    } else if (e.type == evidence::EntryType::FILE) {
      truncationShown = true;  // an unhashed file: over budget or unstable
    }
    std::string target = textOf(entry.getSymlinkTarget());
    if (e.type == evidence::EntryType::SYMLINK) {
      if (target == evidence::OUTSIDE_DECLARED_ROOT) {
        truncationShown = true;
      } else if (target != "." && relativeSteps(target) < 0) {
        return BrokenRule{"a symlink target that is not root-relative"};
      }
      e.symlinkTarget = kj::mv(target);
    } else if (!target.empty()) {
      return BrokenRule{"a symlink target on something not a symlink"};
    }
    out.entries.push_back(kj::mv(e));
  }
  out.truncated = in.getTruncated();
  if (truncationShown && !out.truncated) return BrokenRule{"truncation not reported"};
  return nullptr;
}

kj::Maybe<BrokenRule> checkFailure(schema::SnapshotFailure::Reader failure, size_t rootCount,
                                   FsFailure& out) {
  out.path = textOf(failure.getPath());
  out.entry = textOf(failure.getEntry());
  out.operation = failure.getOperation().cStr();
  out.error = failure.getError();
  size_t root;
  std::string rel;
  if (!splitEntryPath(out.entry, rootCount, root, rel) || OPERATIONS.count(out.operation) == 0 ||
      out.error <= 0) {
    return BrokenRule{"an invalid snapshot failure"};
  }
  return nullptr;
}

}  // namespace

kj::Maybe<BrokenRule> checkSnapshotResult(
    kj::FunctionParam<schema::SnapshotResult::Reader()> readResult, size_t rootCount,
    const FswatchLimits& limits, FswatchOutcome& outcome) {
  return checkedRead([&]() -> kj::Maybe<BrokenRule> {
    auto result = readResult();
    switch (result.which()) {
      case schema::SnapshotResult::SNAPSHOT: {
        outcome.kind = FswatchOutcome::Kind::SNAPSHOT;
        KJ_IF_MAYBE (broken,
                     checkSnapshot(result.getSnapshot(), rootCount, limits, outcome.snapshot)) {
          return BrokenRule{"an invalid snapshot (" + broken->rule + ")"};
        }
        return nullptr;
      }
      case schema::SnapshotResult::FAILURE:
        outcome.kind = FswatchOutcome::Kind::FAILURE;
        return checkFailure(result.getFailure(), rootCount, outcome.failure);
    }
    return BrokenRule{"an unknown snapshot result"};
  });
}

}  // namespace rea::supervisor
