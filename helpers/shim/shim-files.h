#pragma once
// The shim executables (SPEC B §7.1): for each declared shim a file `<shims dir>/<name>`,
// created exclusively, mode 0700, holding a byte copy of our native shim client
// (`rea-shim-client`, built beside the other helper binaries). The client learns which shim it
// is from its own file name, so one binary serves every name and no interpreter starts.
//
// A copy rather than a hard link: a link would share the installed binary's inode (its mode,
// and the build directory usually sits on another filesystem than $TMPDIR); a symlink cannot
// carry mode 0700. A script would start /bin/sh first.
//
// Errors: throws kj::Exception (FAILED) naming the file when the client cannot be read, a name
// is not a plain file name, a shim file already exists (EEXIST: created exclusively) or cannot
// be written. Files written before the failure stay; the temp root's removal takes them.

#include <string>
#include <vector>

namespace rea::helper {

constexpr const char* SHIM_CLIENT_BINARY_NAME = "rea-shim-client";
// The client's file name in the helper directory (supervisor::defaultHelperDirectory()).

void writeShimExecutables(const std::string& shimsDir, const std::vector<std::string>& names,
                          const std::string& clientBinaryPath);
// `shimsDir` exists (the temp root creates it). Names are the plan's shim names in order; each
// must be non-empty, without '/', and not "." or "..". Every file is fully written and closed
// before this returns (an executable still open for writing would fail with ETXTBSY).

}  // namespace rea::helper
