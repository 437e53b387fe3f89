#include "supervisor/replay-link.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <capnp/rpc-twoparty.h>
#include <kj/debug.h>

#include "helpers/common/clock.h"
#include "supervisor/replay-batch.h"
#include "supervisor/helper-message.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

namespace {

// A start answer comes at once (it binds a port); a helper silent for this long has stalled,
// and nothing else would end the capture (A13: rea ends within its deadline).
// 10 s, as the sampler's calls: a sanitizer build starting three helpers at once on a loaded
// two-core machine (the test suite beside a headless browser) once needed more than 5 s.
const kj::Duration START_DEADLINE = 10 * kj::SECONDS;

void validateLaunch(const ReplayLaunch& launch) {
  KJ_REQUIRE(launch.protocolEvents >= 1 && launch.protocolEvents <= 100000,
             "protocolEvents out of range");
  KJ_REQUIRE(launch.protocolBodyBytes >= 1 && launch.protocolBodyBytes <= 10000000,
             "protocolBodyBytes out of range");
  KJ_REQUIRE(launch.connections >= 1 && launch.connections <= 1000, "connections out of range");
  KJ_REQUIRE(launch.routes.size() <= 100, "too many routes");
}

}  // namespace

class ReplayLink::Impl final : private kj::TaskSet::ErrorHandler {
 public:
  Impl(kj::AsyncIoContext& io, std::string helperDirectory)
      : io(io), helperDirectory(kj::mv(helperDirectory)), tasks(*this) {}
  ~Impl() noexcept(false);

  kj::Promise<ReplayStart> start(ReplayLaunch launch);
  kj::Promise<void> finish(kj::Duration deadline);

  ReplayRecord record;
  pid_t pid() const {
    KJ_IF_MAYBE (p, process) {
      return (*p)->pid();
    }
    return 0;
  }

  void push(kj::FunctionParam<schema::ReplaySink::PushParams::Reader()> readParams);
  void done(kj::FunctionParam<schema::ReplaySink::DoneParams::Reader()> readParams);
  void sinkDropped();

 private:
  class Sink;

  kj::AsyncIoContext& io;
  std::string helperDirectory;
  ReplayLaunch launch;

  kj::Maybe<kj::Own<HelperProcess>> process;
  kj::Maybe<kj::Own<kj::AsyncIoStream>> connection;
  kj::Maybe<kj::Own<capnp::TwoPartyVatNetwork>> network;
  kj::Maybe<kj::Own<capnp::RpcSystem<capnp::rpc::twoparty::VatId>>> rpc;
  kj::Maybe<schema::Replay::Client> bootstrap;
  kj::Maybe<schema::ReplayJob::Client> job;
  kj::Maybe<Sink&> sink;
  kj::AutoCloseFd netns;   // the helper's network namespace (loopback)
  kj::AutoCloseFd userns;  // its user namespace, when it is not ours

  bool started = false;
  bool finishCalled = false;
  bool shuttingDown = false;
  bool launchRefused = false;
  std::optional<ReplayStreamCheck> stream;  // the event stream's checks (replay-batch.h)
  kj::TaskSet tasks;                        // last: destroyed first

  HelperProcess& helper() { return *KJ_ASSERT_NONNULL(process); }
  ReplayStart started_(capnp::Response<schema::Replay::StartResults>&& response);
  void holdNamespace(ReplayStart& start);
  void violation(kj::StringPtr what);
  void lose(std::string reason, bool kill);
  void helperEnded(const HelperEnd& end);
  kj::Promise<void> shutDown();
  void taskFailed(kj::Exception&& exception) override {
    lose(std::string("the replay link failed: ") + exception.getDescription().cStr(), true);
  }
};

class ReplayLink::Impl::Sink final : public schema::ReplaySink::Server {
 public:
  explicit Sink(Impl& impl) : impl(impl) {}
  ~Sink() noexcept(false) {
    KJ_IF_MAYBE (i, impl) {
      i->sinkDropped();
    }
  }
  void detach() { impl = nullptr; }

  kj::Promise<void> push(PushContext context) override {
    KJ_IF_MAYBE (i, impl) {
      i->push([&]() { return context.getParams(); });
    }
    return kj::READY_NOW;
  }
  kj::Promise<void> done(DoneContext context) override {
    KJ_IF_MAYBE (i, impl) {
      i->done([&]() { return context.getParams(); });
    }
    return kj::READY_NOW;
  }

 private:
  kj::Maybe<Impl&> impl;
};

ReplayLink::Impl::~Impl() noexcept(false) {
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  job = nullptr;
  bootstrap = nullptr;
  rpc = nullptr;
  network = nullptr;
  connection = nullptr;
  // `process` (declared first) goes last: its destructor SIGKILLs and reaps a live helper.
}

kj::Promise<ReplayStart> ReplayLink::Impl::start(ReplayLaunch launchIn) {
  KJ_REQUIRE(!started, "ReplayLink::start called twice");
  started = true;
  return kj::evalNow([&]() -> kj::Promise<ReplayStart> {
    validateLaunch(launchIn);
    launch = kj::mv(launchIn);
    stream.emplace(launch);

    auto path = kj::str(helperDirectory.c_str(), "/rea-replay");
    process = HelperProcess::spawn(io, "replay", path, nullptr);
    tasks.add(helper().whenEnded().then([this](HelperEnd end) { helperEnded(end); }));
    connection = helper().takeConnection();
    capnp::ReaderOptions options;
    options.traversalLimitInWords = HELPER_MESSAGE_LIMIT_WORDS;
    network = kj::heap<capnp::TwoPartyVatNetwork>(*KJ_ASSERT_NONNULL(connection),
                                                  capnp::rpc::twoparty::Side::CLIENT, options);
    auto& vatNetwork = *KJ_ASSERT_NONNULL(network);
    rpc = kj::heap(capnp::makeRpcClient(vatNetwork));
    capnp::word scratch[4];
    memset(scratch, 0, sizeof(scratch));
    capnp::MallocMessageBuilder message(scratch);
    auto vatId = message.getRoot<capnp::rpc::twoparty::VatId>();
    vatId.setSide(capnp::rpc::twoparty::Side::SERVER);
    bootstrap = KJ_ASSERT_NONNULL(rpc)->bootstrap(vatId).castAs<schema::Replay>();
    tasks.add(vatNetwork.onDisconnect().then(
        [this]() {
          if (shuttingDown || record.fault) return kj::Promise<void>(kj::READY_NOW);
          return io.provider->getTimer().afterDelay(HELPER_STOP_GRACE).then([this]() {
            if (helper().end() == nullptr) helper().kill();
          });
        },
        [](kj::Exception&&) { return kj::Promise<void>(kj::READY_NOW); }));

    auto sinkServer = kj::heap<Sink>(*this);
    sink = *sinkServer;
    auto request = KJ_ASSERT_NONNULL(bootstrap).startRequest();
    auto config = request.initConfig();
    config.setPlan(launch.planJson);
    config.setProtocolEvents(launch.protocolEvents);
    config.setProtocolBodyBytes(launch.protocolBodyBytes);
    config.setConnections(launch.connections);
    config.setLoopbackNetns(launch.loopbackNetns);
    request.setSink(kj::mv(sinkServer));
    return request.send()
        .then(
            [this](capnp::Response<schema::Replay::StartResults>&& response) {
              return started_(kj::mv(response));
            },
            [this](kj::Exception&& exception) -> ReplayStart {
              if (exception.getType() != kj::Exception::Type::DISCONNECTED) {
                helper().markReady();  // it answered: the launch itself failed
                launchRefused = true;
              }
              kj::throwFatalException(kj::mv(exception));
            })
        .exclusiveJoin(
            io.provider->getTimer().afterDelay(START_DEADLINE).then([this]() -> ReplayStart {
              lose("the replay helper did not answer start in time", true);
              KJ_FAIL_REQUIRE("the replay helper did not answer start in time");
            }));
  });
}

ReplayStart ReplayLink::Impl::started_(capnp::Response<schema::Replay::StartResults>&& response) {
  helper().markReady();
  ReplayStart start;
  start.port = response.getPort();
  start.originNs = response.getOriginNs();
  if (start.port == 0 || start.originNs == 0 || start.originNs > monotonicNowNs()) {
    violation("start answered an impossible port or origin");
    KJ_FAIL_REQUIRE("the replay helper answered start with an invalid port or origin");
  }
  std::string base = "127.0.0.1:" + std::to_string(start.port);
  start.httpUrl = "http://" + base;
  start.websocketUrl = "ws://" + base + "/ws";
  if (launch.loopbackNetns) holdNamespace(start);
  job = response.getJob();
  record.originNs = start.originNs;
  record.port = start.port;
  stream->origin(start.originNs);
  return start;
}

void ReplayLink::Impl::holdNamespace(ReplayStart& start) {
  // A9, never silent host networking: the helper must now be in a network namespace that is not
  // ours. We keep it open for the target (the pty helper's child joins it through our fd).
  auto open = [this](const char* kind) {
    auto path = kj::str("/proc/", helper().pid(), "/ns/", kind);
    int fd;
    KJ_SYSCALL(fd = ::open(path.cStr(), O_RDONLY | O_CLOEXEC), "open the replay helper's", kind,
               "namespace");
    return kj::AutoCloseFd(fd);
  };
  auto sameAsOurs = [](int fd, const char* ours) {
    struct stat a, b;
    KJ_SYSCALL(fstat(fd, &a));
    KJ_SYSCALL(stat(ours, &b), ours);
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
  };
  netns = open("net");
  if (sameAsOurs(netns.get(), "/proc/self/ns/net")) {
    helper().kill();
    KJ_FAIL_REQUIRE(
        "the replay helper did not leave the host's network namespace; refusing to run the "
        "target with host networking");
  }
  userns = open("user");
  if (sameAsOurs(userns.get(), "/proc/self/ns/user")) userns = nullptr;
  start.netnsPath = kj::str("/proc/", getpid(), "/fd/", netns.get()).cStr();
  if (userns.get() >= 0)
    start.usernsPath = kj::str("/proc/", getpid(), "/fd/", userns.get()).cStr();
}

kj::Promise<void> ReplayLink::Impl::finish(kj::Duration deadline) {
  KJ_REQUIRE(!finishCalled, "ReplayLink::finish called twice");
  finishCalled = true;
  kj::Promise<void> finished = kj::READY_NOW;
  KJ_IF_MAYBE (j, job) {
    if (!record.fault) {
      finished = j->finishRequest()
                     .send()
                     .ignoreResult()
                     .then(
                         [this]() {
                           if (!record.fault && !record.streamDone) {
                             violation("finish returned before done");
                           }
                         },
                         [this](kj::Exception&& exception) {
                           if (!record.fault && !record.streamDone) {
                             // Disconnected: it is dying by itself; killing it now
                             // would hide how it ended (the sentence says that).
                             lose(std::string("the replay helper failed to finish: ") +
                                      exception.getDescription().cStr(),
                                  exception.getType() != kj::Exception::Type::DISCONNECTED);
                           }
                         })
                     .exclusiveJoin(io.provider->getTimer().afterDelay(deadline).then(
                         [this]() { lose("the replay helper did not finish in time", true); }));
    }
  }
  return finished.then([this]() { return shutDown(); });
}

kj::Promise<void> ReplayLink::Impl::shutDown() {
  if (process == nullptr) return kj::READY_NOW;
  shuttingDown = true;
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  sink = nullptr;
  job = nullptr;
  bootstrap = nullptr;
  rpc = nullptr;
  network = nullptr;
  hangUp(process, connection);
  auto stopped =
      record.fault ? helper().stopLost(HELPER_STOP_GRACE) : helper().stop(HELPER_STOP_GRACE);
  return stopped.then([this](HelperEnd end) { helperEnded(end); });
}

void ReplayLink::Impl::helperEnded(const HelperEnd& end) {
  record.helperEnd = end;
  if (record.fault) {
    record.fault->end = end;
  } else if (!record.streamDone && !launchRefused && record.originNs) {
    lose("the replay helper " + end.describe() + " before its event stream ended", false);
    record.fault->end = end;
  }
}

void ReplayLink::Impl::lose(std::string reason, bool kill) {
  if (record.fault) return;
  record.fault = HelperFault{kj::mv(reason), std::nullopt};
  KJ_IF_MAYBE (p, process) {
    if (kill) (*p)->kill();
    KJ_IF_MAYBE (end, (*p)->end()) {
      record.fault->end = *end;
    }
  }
  KJ_IF_MAYBE (s, sink) {
    s->detach();
  }
  sink = nullptr;
}

void ReplayLink::Impl::violation(kj::StringPtr what) {
  lose(std::string("the replay helper sent a malformed message (") + what.cStr() +
           ") and was stopped",
       true);
}

void ReplayLink::Impl::sinkDropped() {
  sink = nullptr;
  if (!record.streamDone && !record.fault && !shuttingDown) {
    tasks.add(io.provider->getTimer().afterDelay(HELPER_STOP_GRACE).then([this]() {
      if (!record.fault && !record.streamDone) violation("event sink dropped without done");
    }));
  }
}

void ReplayLink::Impl::push(
    kj::FunctionParam<schema::ReplaySink::PushParams::Reader()> readParams) {
  if (record.fault) return;
  KJ_IF_MAYBE (broken, stream->push(readParams, monotonicNowNs(), record)) {
    violation(broken->rule.c_str());
  }
}

void ReplayLink::Impl::done(
    kj::FunctionParam<schema::ReplaySink::DoneParams::Reader()> readParams) {
  if (record.fault) return;
  KJ_IF_MAYBE (broken, stream->done(readParams, record)) {
    violation(broken->rule.c_str());
  }
}

// ---- ReplayLink ------------------------------------------------------------------------

ReplayLink::ReplayLink(kj::AsyncIoContext& io, std::string helperDirectory)
    : impl(kj::heap<Impl>(io, kj::mv(helperDirectory))) {}

ReplayLink::~ReplayLink() noexcept(false) {}

kj::Promise<ReplayStart> ReplayLink::start(ReplayLaunch launch) {
  return impl->start(kj::mv(launch));
}

kj::Promise<void> ReplayLink::finish(kj::Duration deadline) {
  return impl->finish(deadline);
}

const ReplayRecord& ReplayLink::record() const {
  return impl->record;
}

pid_t ReplayLink::helperPid() const {
  return impl->pid();
}

std::optional<std::string> loopbackNetnsUnavailable() {
  auto tryIn = [](int flags) {
    pid_t pid = fork();
    if (pid < 0) return errno;
    if (pid == 0) _exit(unshare(flags) == 0 ? 0 : (errno & 0x7f));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : EPERM;
  };
  int direct = tryIn(CLONE_NEWNET);
  if (direct == 0) return std::nullopt;
  int viaUser = tryIn(CLONE_NEWUSER | CLONE_NEWNET);
  if (viaUser == 0) return std::nullopt;
  return std::string(
             "network_access \"loopback\" needs a private network namespace, and this "
             "machine allows none: unshare(CLONE_NEWNET) failed (") +
         strerror(direct) + ") and so did unshare(CLONE_NEWUSER|CLONE_NEWNET) (" +
         strerror(viaUser) +
         "). Run rea as root or enable unprivileged user namespaces; see "
         "`rea doctor`.";
}

}  // namespace rea::supervisor
