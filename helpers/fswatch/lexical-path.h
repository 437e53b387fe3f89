#pragma once
// Lexical (string-only) path arithmetic for the snapshot's symlink rule (SPEC B §6.9): a link's
// target is resolved against the link's directory the way Node's `path.resolve` does, without
// touching the filesystem, and then placed relative to its declared root. Nothing here follows a
// symlink or asks the kernel anything, so a target outside the root is never disclosed.
//
// Errors: none thrown (apart from std::bad_alloc).

#include <optional>
#include <string>
#include <string_view>

namespace rea::helper {

std::string normalizePath(std::string_view path);
// An absolute path with `//` collapsed, `.` removed, `..` applied lexically (`/..` is `/`) and no
// trailing slash (except `/` itself). A relative input is taken relative to `/`.

std::string parentPath(std::string_view normalized);
// The directory part of a normalised path: "/a/b" -> "/a", "/a" -> "/", "/" -> "/".

std::string joinPath(std::string_view normalizedDir, std::string_view relative);
// `normalizedDir` + "/" + `relative` without doubling the slash of "/"; "." gives the directory.
// `relative` must hold plain names only (the walk's relative paths do).

std::string resolveLexically(std::string_view normalizedDir, std::string_view target);
// Node's path.resolve(dir, target): an absolute target is normalised as is, a relative one is
// appended to the directory and normalised.

std::optional<std::string> rootRelative(std::string_view normalizedRoot,
                                        std::string_view normalizedPath);
// "." when the path is the root, the rest after "<root>/" when it lies under the root (string
// prefix on whole components), nullopt when it lies outside.

}  // namespace rea::helper
