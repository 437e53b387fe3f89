#pragma once
// The executable and the working directory, opened once and checked as opened (issue 18.2).
// The policy check (evidence/policy-check.h) resolves paths with realpath; used by path later,
// a symlink swapped in between by anyone who can write inside an allowed root would run a
// program, or start in a directory, outside the roots. Here each is opened with O_PATH (the
// executable following symlinks, as exec would), the opened object's own path is read back from
// /proc/self/fd and checked against the policy's canonical roots, and from then on only the
// descriptor is used: the pty helper execs and chdirs through /proc/<rea>/fd/<n>, and the
// manifest hashes the same object.
//
// Errors: returned as values (the same permission_required denial as the policy check when the
// opened object lies outside the roots; process_capture_failed when a path cannot be opened).

#include <optional>
#include <string>

#include <kj/io.h>

#include "evidence/error.h"
#include "evidence/policy-config.h"

namespace rea::supervisor {

struct CheckedPaths {
  kj::AutoCloseFd executable;                  // O_PATH | O_CLOEXEC
  kj::AutoCloseFd workingDirectory;            // O_PATH | O_DIRECTORY | O_CLOEXEC
  std::string executableObject() const;        // /proc/<our pid>/fd/<n>: for another process
  std::string workingDirectoryObject() const;  // likewise
  std::string executableHere() const;          // /proc/self/fd/<n>: for this process
};

struct CheckedPathsResult {
  std::optional<CheckedPaths> paths;
  std::optional<evidence::CommandError> error;  // exactly one of the two is set
};

CheckedPathsResult openCheckedPaths(const evidence::OperatorPolicy& policy,
                                    const std::string& executable,
                                    const std::string& workingDirectory);

}  // namespace rea::supervisor
