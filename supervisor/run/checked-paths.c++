#include "supervisor/run/checked-paths.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "evidence/path.h"

namespace rea::supervisor {
namespace {

using namespace rea::evidence;

std::string fdPath(const char* process, int fd) {
  return std::string("/proc/") + process + "/fd/" + std::to_string(fd);
}

std::optional<std::string> openedPath(int fd) {
  // The kernel's name for the object behind fd: symlinks are already resolved, and a later swap
  // of any path component cannot change which object this is.
  char buffer[PATH_MAX + 1];
  ssize_t n = readlink(fdPath("self", fd).c_str(), buffer, PATH_MAX);
  if (n <= 0) return std::nullopt;
  return std::string(buffer, static_cast<size_t>(n));
}

bool withinAny(const std::string& path, const std::vector<PolicyRoot>& roots) {
  return std::any_of(roots.begin(), roots.end(), [&path](const PolicyRoot& root) {
    return isWithinPath(path, root.canonical);
  });
}

std::optional<CommandError> openChecked(const std::string& path, int flags, const char* field,
                                        const std::vector<PolicyRoot>& roots, PolicyDenial denial,
                                        kj::AutoCloseFd& out) {
  int fd = open(path.c_str(), flags | O_PATH | O_CLOEXEC);
  if (fd < 0) {
    return processCaptureFailed(std::string("The scenario's ") + field + " `" + path + "` " +
                                describePathError(errno) + ".");
  }
  out = kj::AutoCloseFd(fd);
  auto opened = openedPath(fd);
  // A deleted or unreachable object (readlink says "(deleted)" or fails) is outside every root.
  if (!opened || opened->empty() || (*opened)[0] != '/' || !withinAny(*opened, roots)) {
    return policyDenied(denial, path, opened.value_or(""));
  }
  return std::nullopt;
}

}  // namespace

std::string CheckedPaths::executableObject() const {
  return fdPath(std::to_string(getpid()).c_str(), executable.get());
}

std::string CheckedPaths::workingDirectoryObject() const {
  return fdPath(std::to_string(getpid()).c_str(), workingDirectory.get());
}

std::string CheckedPaths::executableHere() const {
  return fdPath("self", executable.get());
}

CheckedPathsResult openCheckedPaths(const OperatorPolicy& policy, const std::string& executable,
                                    const std::string& workingDirectory) {
  CheckedPathsResult result;
  CheckedPaths paths;
  if (auto error = openChecked(executable, 0, "executable", policy.executableRoots,
                               PolicyDenial::EXECUTABLE_OUTSIDE_ROOTS, paths.executable)) {
    result.error = std::move(error);
    return result;
  }
  if (auto error =
          openChecked(workingDirectory, O_DIRECTORY, "working_directory", policy.workingRoots,
                      PolicyDenial::WORKING_DIRECTORY_OUTSIDE_ROOTS, paths.workingDirectory)) {
    result.error = std::move(error);
    return result;
  }
  result.paths = std::move(paths);
  return result;
}

}  // namespace rea::supervisor
