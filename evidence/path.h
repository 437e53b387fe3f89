#pragma once
// Paths for the operator policy (SPEC B §2.2): lexical normalisation, the containment rule
// ("inside a root") and canonicalisation through an injectable realpath.
//
// The policy checks every path twice: lexically (what the scenario wrote, `.`/`..` resolved, no
// symlinks followed) and canonically (realpath of the candidate inside realpath of the root), so
// a symlink inside a root cannot lead out of it. Both forms use the same containment rule.
//
// Errors: the lexical functions never throw. `PathResolver::realPath` reports a failure as an
// errno value in its result, never by throwing.

#include <optional>
#include <string>
#include <string_view>

namespace rea::evidence {

std::string normalizePath(std::string_view path);
// Lexical normalisation, POSIX semantics, no filesystem access: repeated `/` collapse, `.`
// segments vanish, `..` removes the previous segment (at `/` it stays at `/`), a trailing `/` is
// dropped. `/bin/../usr/bin/env` -> `/usr/bin/env`, `/usr/bin/` -> `/usr/bin`, `/..` -> `/`.
// A relative path stays relative (leading `..` kept); an empty result is `.`.

std::string resolvePath(std::string_view base, std::string_view path);
// `path` made absolute against the absolute directory `base` (when it is relative), then
// normalised: resolvePath("/work", "roots/../bin") == "/work/bin". An absolute `path` ignores
// `base`.

std::string joinPath(std::string_view base, std::string_view path);
// `path` itself when absolute, else `base` + "/" + `path`, without normalising. This is the
// string handed to realpath, which must see the `..` segments that follow a symlink.

bool isWithinPath(std::string_view candidate, std::string_view root);
// The containment rule of SPEC B §2.2 on normalised absolute paths: `candidate` equals `root`,
// or starts with `root` followed by `/` (a root already ending in `/`, i.e. `/` itself, is used
// as is). `/tmp` is not within `/tm`; everything absolute is within `/`. For normalised absolute
// paths this equals gate 1's path-relative rule (the relative path from root to candidate is
// empty, or neither `..`, nor starting with `../`, nor absolute).

struct ResolvedPath {
  std::optional<std::string> path;  // the canonical absolute path, when resolution succeeded
  int errorNumber = 0;              // the errno of the failed resolution otherwise
};

class PathResolver {
  // Canonicalises paths. Injected so that the policy can be tested against a table of symlinks
  // as well as against real directories.
 public:
  virtual ~PathResolver() noexcept(false);

  virtual ResolvedPath realPath(const std::string& path) const = 0;
  // The canonical absolute path of an existing `path` (every symlink followed, no `.`/`..`),
  // like realpath(3). A missing path (or any other failure) yields its errno.
};

const PathResolver& systemPathResolver();
// The resolver that calls ::realpath. The only part of evidence/ that reads the filesystem;
// callers decide whether to use it.

std::string describePathError(int errorNumber);
// A short lowercase phrase for a resolution failure ("does not exist" for ENOENT, "is not
// accessible (permission denied)" for EACCES, ...), for user messages.

}  // namespace rea::evidence
