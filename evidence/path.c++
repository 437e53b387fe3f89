#include "evidence/path.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace rea::evidence {

std::string normalizePath(std::string_view path) {
  bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    start = end + 1;
    if (segment.empty() || segment == ".") continue;
    if (segment == "..") {
      if (!segments.empty() && segments.back() != "..") {
        segments.pop_back();
      } else if (!absolute) {
        // A relative path cannot climb above its start lexically; keep the `..`.
        segments.push_back(segment);
      }
      continue;
    }
    segments.push_back(segment);
  }

  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out += '/';
    out += segments[i];
  }
  if (out.empty()) out = ".";
  return out;
}

std::string resolvePath(std::string_view base, std::string_view path) {
  return normalizePath(joinPath(base, path));
}

std::string joinPath(std::string_view base, std::string_view path) {
  if (!path.empty() && path.front() == '/') return std::string(path);
  std::string out(base);
  if (out.empty() || out.back() != '/') out += '/';
  out += path;
  return out;
}

bool isWithinPath(std::string_view candidate, std::string_view root) {
  if (candidate == root) return true;
  if (root.empty()) return false;
  if (root.back() == '/') return candidate.substr(0, root.size()) == root;
  return candidate.size() > root.size() && candidate.substr(0, root.size()) == root &&
         candidate[root.size()] == '/';
}

PathResolver::~PathResolver() noexcept(false) {}

namespace {

class SystemPathResolver final : public PathResolver {
 public:
  ResolvedPath realPath(const std::string& path) const override {
    // realpath(path, nullptr) allocates, so no PATH_MAX buffer can be overrun.
    std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr),
                                                         &std::free);
    if (resolved == nullptr) return ResolvedPath{std::nullopt, errno};
    return ResolvedPath{std::string(resolved.get()), 0};
  }
};

}  // namespace

const PathResolver& systemPathResolver() {
  static const SystemPathResolver RESOLVER;
  return RESOLVER;
}

std::string describePathError(int errorNumber) {
  switch (errorNumber) {
    case ENOENT:
      return "does not exist";
    case ENOTDIR:
      return "does not exist (a component is not a directory)";
    case EACCES:
      return "is not accessible (permission denied)";
    case ELOOP:
      return "cannot be resolved (too many levels of symbolic links)";
    case ENAMETOOLONG:
      return "cannot be resolved (name too long)";
    default: {
      const char* text = std::strerror(errorNumber);
      return std::string("cannot be resolved (") + (text ? text : "unknown error") + ")";
    }
  }
}

}  // namespace rea::evidence
