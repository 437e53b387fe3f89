#include "supervisor/fswatch-link.h"

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <set>

#include "evidence/utf.h"
#include "schema/fswatch.capnp.h"

namespace rea::supervisor {

namespace {

const kj::Duration STOP_GRACE = 500 * kj::MILLISECONDS;
const uint64_t READER_LIMIT_WORDS = 128 * 1024 * 1024;  // 1 GiB: 100000 entries of deep paths

uint64_t monotonicNowNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

std::string textOf(capnp::Data::Reader data) {
  return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
}

kj::ArrayPtr<const kj::byte> bytesOf(const std::string& text) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text.data()), text.size());
}

bool isLowerHex64(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// "a/b/c": non-empty steps, none "." or "..". Returns the number of steps, or -1.
int relativeSteps(const std::string& rel) {
  if (rel.empty() || rel.front() == '/' || rel.back() == '/') return -1;
  int steps = 0;
  size_t start = 0;
  for (;;) {
    size_t end = rel.find('/', start);
    std::string step = rel.substr(start, end == std::string::npos ? end : end - start);
    if (step.empty() || step == "." || step == ".." || step.find('\0') != std::string::npos) {
      return -1;
    }
    ++steps;
    if (end == std::string::npos) return steps;
    start = end + 1;
  }
}

// Splits "root_<i>:<rel>"; false when it is not of that form with i < rootCount.
bool splitEntryPath(const std::string& path, size_t rootCount, size_t& index, std::string& rel) {
  if (path.compare(0, 5, "root_") != 0) return false;
  size_t colon = path.find(':');
  if (colon == std::string::npos || colon == 5 || colon > 7) return false;
  index = 0;
  for (size_t i = 5; i < colon; ++i) {
    if (path[i] < '0' || path[i] > '9') return false;
    index = index * 10 + size_t(path[i] - '0');
  }
  if (colon - 5 > 1 && path[5] == '0') return false;
  if (index >= rootCount) return false;
  rel = path.substr(colon + 1);
  return true;
}

evidence::EntryType entryTypeFrom(schema::EntryType type, bool& known) {
  known = true;
  switch (type) {
    case schema::EntryType::FILE:
      return evidence::EntryType::FILE;
    case schema::EntryType::DIRECTORY:
      return evidence::EntryType::DIRECTORY;
    case schema::EntryType::SYMLINK:
      return evidence::EntryType::SYMLINK;
    case schema::EntryType::OTHER:
      return evidence::EntryType::OTHER;
  }
  known = false;
  return evidence::EntryType::OTHER;
}

bool modeMatches(evidence::EntryType type, uint32_t mode) {
  switch (type) {
    case evidence::EntryType::FILE:
      return S_ISREG(mode);
    case evidence::EntryType::DIRECTORY:
      return S_ISDIR(mode);
    case evidence::EntryType::SYMLINK:
      return S_ISLNK(mode);
    case evidence::EntryType::OTHER:
      return !S_ISREG(mode) && !S_ISDIR(mode) && !S_ISLNK(mode) && (mode & S_IFMT) != 0;
  }
  return false;
}

const std::set<std::string> OPERATIONS = {"lstat",    "open", "fstat",    "readdir",
                                          "readlink", "read", "cancelled"};

// Checks one answered snapshot against the request (B §6.9). Returns the broken rule, or null.
kj::Maybe<kj::String> checkSnapshot(schema::Snapshot::Reader in, size_t rootCount,
                                    const FswatchLimits& limits, FsSnapshot& out) {
  auto entries = in.getEntries();
  if (entries.size() > limits.files) return kj::str("more entries than limits.files");
  std::set<std::string> seen;
  uint64_t hashedBytes = 0;
  bool truncationShown = false;  // an entry proves the snapshot was truncated
  size_t lastRoot = 0;
  bool anyEntry = false;
  out.entries.reserve(entries.size());
  for (auto entry : entries) {
    evidence::SnapshotEntry e;
    e.path = textOf(entry.getPath());
    size_t root;
    std::string rel;
    if (!splitEntryPath(e.path, rootCount, root, rel)) return kj::str("an entry outside the roots");
    if (anyEntry && root < lastRoot) return kj::str("roots out of order");
    bool newRoot = !anyEntry || root != lastRoot;
    anyEntry = true;
    lastRoot = root;
    if (newRoot != (rel == ".")) return kj::str("a root that does not start with \".\"");
    if (rel != ".") {
      int steps = relativeSteps(rel);
      if (steps < 0) return kj::str("a malformed relative path");
      if (uint64_t(steps) > limits.depth) return kj::str("an entry deeper than the limit");
    }
    if (!seen.insert(e.path).second) return kj::str("a repeated path");
    bool known;
    e.type = entryTypeFrom(entry.getType(), known);
    if (!known) return kj::str("an unknown entry type");
    uint32_t mode = entry.getMode();
    if (!modeMatches(e.type, mode)) return kj::str("a type that contradicts the mode");
    e.mode = mode;
    e.size = entry.getSize();
    if (e.size < 0) return kj::str("a negative size");
    std::string sha = entry.getSha256().cStr();
    if (!sha.empty()) {
      if (e.type != evidence::EntryType::FILE) return kj::str("a hash on something not a file");
      if (!isLowerHex64(sha)) return kj::str("a malformed sha256");
      hashedBytes += uint64_t(e.size);
      if (hashedBytes > limits.fileBytes) return kj::str("more hashed bytes than the budget");
      e.sha256 = kj::mv(sha);
    } else if (e.type == evidence::EntryType::FILE) {
      truncationShown = true;  // an unhashed file: over budget or unstable
    }
    std::string target = textOf(entry.getSymlinkTarget());
    if (e.type == evidence::EntryType::SYMLINK) {
      if (target == evidence::OUTSIDE_DECLARED_ROOT) {
        truncationShown = true;
      } else if (target != "." && relativeSteps(target) < 0) {
        return kj::str("a symlink target that is not root-relative");
      }
      e.symlinkTarget = kj::mv(target);
    } else if (!target.empty()) {
      return kj::str("a symlink target on something not a symlink");
    }
    out.entries.push_back(kj::mv(e));
  }
  out.truncated = in.getTruncated();
  if (truncationShown && !out.truncated) return kj::str("truncation not reported");
  return nullptr;
}

}  // namespace

class FswatchLink::Impl {
 public:
  Impl(kj::AsyncIoContext& io, std::vector<std::string> roots, FswatchLimits limits,
       std::string helperDirectory, kj::Duration deadline)
      : io(io),
        roots(kj::mv(roots)),
        limits(limits),
        helperDirectory(kj::mv(helperDirectory)),
        deadline(deadline) {
    KJ_REQUIRE(this->roots.size() <= 16, "more than 16 filesystem roots");
    for (const auto& root : this->roots) {
      KJ_REQUIRE(!root.empty() && root[0] == '/', "a filesystem root is not absolute");
    }
    KJ_REQUIRE(limits.files >= 1 && limits.files <= 100000, "files out of range");
    KJ_REQUIRE(limits.fileBytes >= 1 && limits.fileBytes <= 100000000, "fileBytes out of range");
    KJ_REQUIRE(limits.depth >= 1 && limits.depth <= 64, "depth out of range");
  }

  ~Impl() noexcept(false) {
    queue = kj::READY_NOW;  // cancels a call in flight before the RPC system goes
    bootstrap = nullptr;
    rpc = nullptr;
    network = nullptr;
    connection = nullptr;
    // `process` goes last (declared first): its destructor SIGKILLs and reaps a live helper.
  }

  kj::Promise<FswatchOutcome> snapshot(bool final) {
    auto paf = kj::newPromiseAndFulfiller<FswatchOutcome>();
    auto fulfiller = kj::mv(paf.fulfiller);
    queue = kj::mv(queue)
                .then([this, final, fulfiller = kj::mv(fulfiller)]() mutable {
                  return kj::evalNow([this, final]() { return takeOne(final); })
                      .catch_([this](kj::Exception&& exception) {
                        // A bug of ours, not the helper's: keep the record honest.
                        lose(std::string("the fswatch link failed: ") +
                             exception.getDescription().cStr());
                        return lost();
                      })
                      .then([fulfiller = kj::mv(fulfiller)](FswatchOutcome outcome) mutable {
                        fulfiller->fulfill(kj::mv(outcome));
                      });
                })
                .eagerlyEvaluate(nullptr);
    return kj::mv(paf.promise);
  }

  kj::Promise<void> finish() {
    KJ_REQUIRE(!finished, "FswatchLink::finish called twice");
    auto done = kj::mv(queue).then([this]() { return shutDown(); });
    finished = true;
    queue = kj::READY_NOW;
    return done;
  }

  kj::Maybe<HelperFault> fault;
  kj::Maybe<kj::Own<HelperProcess>> process;

 private:
  kj::AsyncIoContext& io;
  std::vector<std::string> roots;
  FswatchLimits limits;
  std::string helperDirectory;
  kj::Duration deadline;
  bool finished = false;
  bool stopping = false;
  kj::Maybe<kj::Own<kj::AsyncIoStream>> connection;
  kj::Maybe<kj::Own<capnp::TwoPartyVatNetwork>> network;
  kj::Maybe<kj::Own<capnp::RpcSystem<capnp::rpc::twoparty::VatId>>> rpc;
  kj::Maybe<schema::Fswatch::Client> bootstrap;
  kj::Promise<void> queue = kj::READY_NOW;

  FswatchOutcome lost() {
    FswatchOutcome outcome;
    outcome.kind = FswatchOutcome::Kind::LOST;
    outcome.atNs = monotonicNowNs();
    return outcome;
  }

  void lose(std::string reason) {
    if (fault != nullptr) return;
    HelperFault f{kj::mv(reason), std::nullopt};
    KJ_IF_MAYBE (p, process) {
      (*p)->kill();
      KJ_IF_MAYBE (end, (*p)->end()) {
        f.end = *end;
      }
    }
    fault = kj::mv(f);
    bootstrap = nullptr;
  }

  void ensureHelper() {
    if (process != nullptr) return;
    auto path = kj::str(helperDirectory.c_str(), "/rea-fswatch");
    process = HelperProcess::spawn(io, "fswatch", path, nullptr);
    connection = KJ_ASSERT_NONNULL(process)->takeConnection();
    capnp::ReaderOptions options;
    options.traversalLimitInWords = READER_LIMIT_WORDS;
    network = kj::heap<capnp::TwoPartyVatNetwork>(*KJ_ASSERT_NONNULL(connection),
                                                  capnp::rpc::twoparty::Side::CLIENT, options);
    rpc = kj::heap(capnp::makeRpcClient(*KJ_ASSERT_NONNULL(network)));
    capnp::word scratch[4];
    memset(scratch, 0, sizeof(scratch));
    capnp::MallocMessageBuilder message(scratch);
    auto vatId = message.getRoot<capnp::rpc::twoparty::VatId>();
    vatId.setSide(capnp::rpc::twoparty::Side::SERVER);
    bootstrap = KJ_ASSERT_NONNULL(rpc)->bootstrap(vatId).castAs<schema::Fswatch>();
  }

  // Waits (briefly) for a helper whose call failed to be reaped, so the fault says how it ended.
  kj::Promise<FswatchOutcome> lostDuringSnapshot(kj::String what) {
    auto& helper = *KJ_ASSERT_NONNULL(process);
    return helper.whenEnded()
        .then([](HelperEnd end) -> kj::Maybe<HelperEnd> { return end; })
        .exclusiveJoin(
            io.provider->getTimer().afterDelay(STOP_GRACE).then([]() -> kj::Maybe<HelperEnd> {
              return nullptr;
            }))
        .then([this, what = kj::mv(what)](kj::Maybe<HelperEnd> end) {
          KJ_IF_MAYBE (e, end) {
            lose("the fswatch helper " + e->describe() + " during a snapshot");
          } else {
            lose(std::string("the fswatch helper failed a snapshot (") + what.cStr() +
                 ") and was stopped");
          }
          return lost();
        });
  }

  kj::Promise<FswatchOutcome> takeOne(bool final) {
    if (fault != nullptr || finished) return lost();
    KJ_IF_MAYBE (e, kj::runCatchingExceptions([this]() { ensureHelper(); })) {
      lose(std::string("the fswatch helper could not be started: ") + e->getDescription().cStr());
      return lost();
    }
    auto request = KJ_ASSERT_NONNULL(bootstrap).snapshotRequest();
    auto rootList = request.initRoots(roots.size());
    for (size_t i = 0; i < roots.size(); ++i)
      rootList.set(i, bytesOf(roots[i]));
    auto limitsOut = request.initLimits();
    limitsOut.setFiles(limits.files);
    limitsOut.setFileBytes(limits.fileBytes);
    limitsOut.setDepth(limits.depth);
    request.setFinal(final);
    auto answer = request.send().then(
        [this](capnp::Response<schema::Fswatch::SnapshotResults>&& response)
            -> kj::Promise<FswatchOutcome> {
          KJ_ASSERT_NONNULL(process)->markReady();
          return accept(response.getResult());
        },
        [this](kj::Exception&& exception) -> kj::Promise<FswatchOutcome> {
          if (exception.getType() != kj::Exception::Type::DISCONNECTED) {
            KJ_ASSERT_NONNULL(process)->markReady();
          }
          return lostDuringSnapshot(kj::str(exception.getDescription()));
        });
    return answer.exclusiveJoin(io.provider->getTimer().afterDelay(deadline).then([this]() {
      lose("the fswatch helper did not answer a snapshot in time and was stopped");
      return lost();
    }));
  }

  FswatchOutcome accept(schema::SnapshotResult::Reader result) {
    FswatchOutcome outcome;
    outcome.atNs = monotonicNowNs();
    switch (result.which()) {
      case schema::SnapshotResult::SNAPSHOT: {
        outcome.kind = FswatchOutcome::Kind::SNAPSHOT;
        KJ_IF_MAYBE (broken,
                     checkSnapshot(result.getSnapshot(), roots.size(), limits, outcome.snapshot)) {
          lose(std::string("the fswatch helper sent a malformed snapshot (") + broken->cStr() +
               ") and was stopped");
          return lost();
        }
        return outcome;
      }
      case schema::SnapshotResult::FAILURE: {
        auto failure = result.getFailure();
        outcome.kind = FswatchOutcome::Kind::FAILURE;
        outcome.failure.path = textOf(failure.getPath());
        outcome.failure.entry = textOf(failure.getEntry());
        outcome.failure.operation = failure.getOperation().cStr();
        outcome.failure.error = failure.getError();
        size_t root;
        std::string rel;
        if (!splitEntryPath(outcome.failure.entry, roots.size(), root, rel) ||
            OPERATIONS.count(outcome.failure.operation) == 0 || outcome.failure.error <= 0) {
          lose("the fswatch helper sent a malformed snapshot failure and was stopped");
          return lost();
        }
        return outcome;
      }
    }
    lose("the fswatch helper sent a malformed snapshot result (of no known kind) and was stopped");
    return lost();
  }

  kj::Promise<void> shutDown() {
    bootstrap = nullptr;
    rpc = nullptr;
    network = nullptr;
    connection = nullptr;
    KJ_IF_MAYBE (p, process) {
      return ((fault != nullptr) ? (*p)->stopLost(STOP_GRACE) : (*p)->stop(STOP_GRACE))
          .then([this](HelperEnd end) {
            KJ_IF_MAYBE (f, fault) {
              f->end = end;
            }
          });
    }
    return kj::READY_NOW;
  }
};

FswatchLink::FswatchLink(kj::AsyncIoContext& io, std::vector<std::string> roots,
                         FswatchLimits limits, std::string helperDirectory, kj::Duration deadline)
    : impl(kj::heap<Impl>(io, kj::mv(roots), limits, kj::mv(helperDirectory), deadline)) {}

FswatchLink::~FswatchLink() noexcept(false) {}

kj::Promise<FswatchOutcome> FswatchLink::snapshot(bool final) {
  return impl->snapshot(final);
}

kj::Promise<void> FswatchLink::finish() {
  return impl->finish();
}

kj::Maybe<const HelperFault&> FswatchLink::fault() const {
  KJ_IF_MAYBE (f, impl->fault) {
    return *f;
  }
  return nullptr;
}

kj::Maybe<pid_t> FswatchLink::helperPid() const {
  KJ_IF_MAYBE (p, impl->process) {
    if ((*p)->end() == nullptr) return (*p)->pid();
  }
  return nullptr;
}

std::string fsFailureMessage(const FsFailure& failure) {
  return "A filesystem snapshot could not read " + evidence::sanitizeUtf8(failure.entry) + " (" +
         failure.operation + ": " + strerror(failure.error) + ").";
}

}  // namespace rea::supervisor
