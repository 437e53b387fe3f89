#pragma once
// SHA-256 of a file's bytes (following symlinks), for the manifest's executable_sha256
// (SPEC B §5.1: read at manifest time, at the end of the run).
//
// Errors: none thrown; nullopt when the file cannot be opened or read.

#include <optional>
#include <string>

namespace rea::supervisor {

std::optional<std::string> hashFile(const std::string& path);

}  // namespace rea::supervisor
