#include "helpers/fswatch/standalone.h"

#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include "helpers/common/request-field.h"
#include "evidence/utf.h"

namespace rea::helper {

namespace {

evidence::Json optionalText(const std::optional<std::string>& text) {
  if (!text) return nullptr;
  return evidence::sanitizeUtf8(*text);
}

}  // namespace

void checkSnapshotRequest(const std::vector<std::string>& roots, const SnapshotLimits& limits) {
  KJ_REQUIRE(roots.size() <= 16, "more than 16 roots", roots.size());
  for (const auto& root : roots) {
    KJ_REQUIRE(!root.empty() && root[0] == '/', "a root is not an absolute path");
    KJ_REQUIRE(root.find('\0') == std::string::npos, "a root contains NUL");
  }
  KJ_REQUIRE(evidence::limit::FILES.contains(limits.files), "files out of range", limits.files);
  KJ_REQUIRE(evidence::limit::FILE_BYTES.contains(limits.fileBytes), "fileBytes out of range",
             limits.fileBytes);
  KJ_REQUIRE(evidence::limit::FILESYSTEM_DEPTH.contains(limits.depth), "depth out of range",
             limits.depth);
}

SnapshotRequest snapshotRequestFromJson(const evidence::Json& request) {
  KJ_REQUIRE(request.is_object(), "the request is not a JSON object");
  SnapshotRequest result;
  result.roots = field<std::vector<std::string>>(request, "roots", {});
  result.limits.files = field<uint64_t>(request, "files", result.limits.files);
  result.limits.fileBytes = field<uint64_t>(request, "fileBytes", result.limits.fileBytes);
  result.limits.depth = field<uint64_t>(request, "depth", result.limits.depth);
  auto backend = field<std::string>(request, "backend", "auto");
  if (backend == "plain") {
    result.backend = SnapshotBackend::PLAIN;
  } else if (backend == "uring") {
    result.backend = SnapshotBackend::URING;
  } else {
    KJ_REQUIRE(backend == "auto", "backend is not auto, plain or uring", backend);
  }
  checkSnapshotRequest(result.roots, result.limits);
  return result;
}

kj::Promise<void> runFswatchStandalone(const evidence::Json& json, const WriteLock& lock,
                                       JsonLines& out) {
  auto request = snapshotRequestFromJson(json);
  RingOpen ringOpen = lock.ringMayOpen ? RingOpen::ALLOWED : RingOpen::FORBIDDEN;
  auto result = takeSnapshot(request.roots, request.limits, request.backend, {}, ringOpen);
  if (auto* failure = std::get_if<SnapshotFailure>(&result)) {
    out.write({{"failure",
                {{"path", evidence::sanitizeUtf8(failure->path)},
                 {"entry", evidence::sanitizeUtf8(failure->entry)},
                 {"operation", failure->operation},
                 {"error", failure->error},
                 {"message", evidence::sanitizeUtf8(failure->message())}}}});
    return kj::READY_NOW;
  }
  auto& snapshot = std::get<Snapshot>(result);
  for (const auto& entry : snapshot.entries) {
    out.write({{"entry",
                {{"path", evidence::sanitizeUtf8(entry.path)},
                 {"type", evidence::entryTypeName(entry.type)},
                 {"mode", entry.mode},
                 {"size", entry.size},
                 {"sha256", optionalText(entry.sha256)},
                 {"symlink_target", optionalText(entry.symlinkTarget)}}}});
  }
  out.write({{"done",
              {{"truncated", snapshot.truncated},
               {"backend", snapshotBackendName(snapshot.backendUsed)},
               {"ring_may_open", lock.ringMayOpen},
               {"write_lock", lock.detail}}}});
  return kj::READY_NOW;
}

}  // namespace rea::helper
