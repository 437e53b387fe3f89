#include "helpers/fswatch/server.h"

#include <kj/debug.h>

#include "evidence/sha256.h"
#include "helpers/common/fault-injection.h"
#include "helpers/fswatch/seccomp-policy.h"
#include "helpers/fswatch/snapshot.h"
#include "helpers/fswatch/standalone.h"
#include "helpers/fswatch/write-lock.h"
#include "schema/fswatch.capnp.h"

namespace rea::helper {

namespace {

std::string textOf(capnp::Data::Reader data) {
  return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
}

kj::ArrayPtr<const kj::byte> bytesOf(const std::string& text) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text.data()), text.size());
}

schema::EntryType entryTypeToSchema(evidence::EntryType type) {
  switch (type) {
    case evidence::EntryType::FILE:
      return schema::EntryType::FILE;
    case evidence::EntryType::DIRECTORY:
      return schema::EntryType::DIRECTORY;
    case evidence::EntryType::SYMLINK:
      return schema::EntryType::SYMLINK;
    case evidence::EntryType::OTHER:
      return schema::EntryType::OTHER;
  }
  KJ_UNREACHABLE;
}

void snapshotToSchema(const Snapshot& snapshot, const WriteLock& lock,
                      schema::Snapshot::Builder out) {
  auto entries = out.initEntries(snapshot.entries.size());
  for (size_t i = 0; i < snapshot.entries.size(); ++i) {
    const auto& from = snapshot.entries[i];
    auto to = entries[i];
    to.setPath(bytesOf(from.path));
    to.setType(entryTypeToSchema(from.type));
    to.setMode(static_cast<uint32_t>(from.mode));
    to.setSize(from.size);
    if (from.sha256) to.setSha256(from.sha256->c_str());
    if (from.symlinkTarget) to.setSymlinkTarget(bytesOf(*from.symlinkTarget));
  }
  out.setTruncated(snapshot.truncated);
  out.setUsedUring(snapshot.backendUsed == SnapshotBackend::URING);
  out.setWriteLock(lock.detail);
}

// Landlock first: it restricts only the calling thread, so it must come while the helper has
// one, and before the first ring exists. Then the common lock-down (NO_NEW_PRIVS, rlimits,
// seccomp). Without Landlock the ring does not open files (write-lock.h).
WriteLock lockDownFswatch(HelperContext& context) {
  WriteLock lock = refuseWrites();
  context.lockDown();
  return lock;
}

class FswatchServer final : public schema::Fswatch::Server {
 public:
  explicit FswatchServer(WriteLock lock)
      : lock(kj::mv(lock)),
        snapshotter(SnapshotBackend::AUTO,
                    this->lock.ringMayOpen ? RingOpen::ALLOWED : RingOpen::FORBIDDEN) {}

  kj::Promise<void> snapshot(SnapshotContext call) override {
    auto params = call.getParams();
    std::vector<std::string> roots;
    for (auto root : params.getRoots())
      roots.push_back(textOf(root));
    auto limitsIn = params.getLimits();
    SnapshotLimits limits;
    limits.files = limitsIn.getFiles();
    limits.fileBytes = limitsIn.getFileBytes();
    limits.depth = limitsIn.getDepth();
    checkSnapshotRequest(roots, limits);
    // Test-only fault moments: the first call is "start"; the final (after_settlement) snapshot
    // marks settlement, and answering it is the helper's last act ("stop").
    if (!called) faultPoint(FaultMoment::START);
    called = true;
    if (params.getFinal()) faultPoint(FaultMoment::SETTLE);
    // Blocking on purpose: the helper has nothing else to do meanwhile, and the supervisor
    // never sends a second snapshot before this one is answered.
    auto result = snapshotter.take(roots, limits);
    if (params.getFinal()) faultPoint(FaultMoment::STOP);
    auto out = call.getResults().initResult();
    if (auto* failure = std::get_if<SnapshotFailure>(&result)) {
      auto to = out.initFailure();
      to.setPath(bytesOf(failure->path));
      to.setEntry(bytesOf(failure->entry));
      to.setOperation(failure->operation.c_str());
      to.setError(failure->error);
    } else {
      auto& snapshot = std::get<Snapshot>(result);
      // test-only: a malformed answer holds an entry under a root the request did not have
      if (takeMalformed()) {
        evidence::SnapshotEntry bogus;
        bogus.path = "root_16:malformed";
        snapshot.entries.push_back(bogus);
      }
      snapshotToSchema(snapshot, lock, out.initSnapshot());
    }
    return kj::READY_NOW;
  }

 private:
  WriteLock lock;
  Snapshotter snapshotter;
  bool called = false;
};

}  // namespace

HelperSpec fswatchHelperSpec() {
  HelperSpec spec;
  spec.name = "fswatch";
  spec.policy = []() { return fswatchSeccompPolicy(); };
  // helperMain wraps fd 3 after a lock-down at start, and kj sets O_NONBLOCK on it with
  // ioctl(FIONBIO), which the filter has no reason to allow: lock down in makeServer instead,
  // after the wrap and before the first byte of any request is read.
  spec.lockDownAtStart = false;
  spec.prepare = [](HelperContext&) {
    // The digests use OpenSSL's one-call SHA-256 (evidence/sha256.c++), which loads nothing;
    // one before the lock-down anyway, so a library that did (openat of files the filter
    // kills) would fail here, in the open, rather than on the first file of a snapshot.
    evidence::sha256Hex("warm-up");
  };
  spec.makeServer = [](HelperContext& context) -> capnp::Capability::Client {
    return kj::heap<FswatchServer>(lockDownFswatch(context));
  };
  spec.runStandalone = [](HelperContext& context, const evidence::Json& request, JsonLines& out) {
    // The request is the operator's; the walk reads untrusted names.
    WriteLock lock = lockDownFswatch(context);
    return runFswatchStandalone(request, lock, out);
  };
  return spec;
}

}  // namespace rea::helper
