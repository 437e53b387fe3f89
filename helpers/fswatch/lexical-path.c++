#include "helpers/fswatch/lexical-path.h"

#include <vector>

namespace rea::helper {

std::string normalizePath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(pos, end - pos);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = end + 1;
  }
  if (parts.empty()) return "/";
  std::string out;
  for (auto part : parts) {
    out.push_back('/');
    out.append(part);
  }
  return out;
}

std::string parentPath(std::string_view normalized) {
  size_t slash = normalized.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(normalized.substr(0, slash));
}

std::string joinPath(std::string_view normalizedDir, std::string_view relative) {
  if (relative == ".") return std::string(normalizedDir);
  std::string out(normalizedDir);
  if (out != "/") out.push_back('/');
  out.append(relative);
  return out;
}

std::string resolveLexically(std::string_view normalizedDir, std::string_view target) {
  if (!target.empty() && target[0] == '/') return normalizePath(target);
  std::string combined(normalizedDir);
  combined.push_back('/');
  combined.append(target);
  return normalizePath(combined);
}

std::optional<std::string> rootRelative(std::string_view normalizedRoot,
                                        std::string_view normalizedPath) {
  if (normalizedPath == normalizedRoot) return std::string(".");
  if (normalizedRoot == "/") return std::string(normalizedPath.substr(1));
  if (normalizedPath.size() > normalizedRoot.size() &&
      normalizedPath.substr(0, normalizedRoot.size()) == normalizedRoot &&
      normalizedPath[normalizedRoot.size()] == '/') {
    return std::string(normalizedPath.substr(normalizedRoot.size() + 1));
  }
  return std::nullopt;
}

}  // namespace rea::helper
