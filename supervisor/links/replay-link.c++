#include "supervisor/links/replay-link.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <kj/debug.h>

#include "evidence/limits.h"
#include "helpers/common/clock.h"
#include "helpers/common/plan-builder.h"
#include "supervisor/links/helper-link.h"
#include "supervisor/links/replay-batch.h"

namespace rea::supervisor {

using helper::monotonicNowNs;

namespace {

void validateLaunch(const ReplayLaunch& launch) {
  KJ_REQUIRE(evidence::limit::PROTOCOL_EVENTS.contains(launch.protocolEvents),
             "protocolEvents out of range");
  KJ_REQUIRE(evidence::limit::PROTOCOL_BODY_BYTES.contains(launch.protocolBodyBytes),
             "protocolBodyBytes out of range");
  KJ_REQUIRE(evidence::limit::CONNECTIONS.contains(launch.connections), "connections out of range");
  KJ_REQUIRE(launch.plan.http.size() <= 100, "too many routes");
}

void fillConfig(const ReplayLaunch& launch, schema::ReplayConfig::Builder config) {
  helper::buildReplayPlan(launch.plan, config.initPlan());
  config.setProtocolEvents(launch.protocolEvents);
  config.setProtocolBodyBytes(launch.protocolBodyBytes);
  config.setConnections(launch.connections);
  config.setLoopbackNetns(launch.loopbackNetns);
}

}  // namespace

class ReplayLink::Impl final : public LinkRecord<ReplayRecord>, public HelperLink {
 public:
  Impl(kj::AsyncIoContext& io, std::string helperDirectory)
      : HelperLink(io, "replay", kj::mv(helperDirectory),
                   {record.fault, &record.streamDone, &record.helperEnd}) {}

  kj::Promise<ReplayStart> start(ReplayLaunch launch);
  kj::Promise<void> finish(kj::Duration deadline) {
    KJ_REQUIRE(!finishing(), "ReplayLink::finish called twice");
    return finishJob<schema::ReplayJob>(deadline);
  }

  pid_t pid() const {
    KJ_IF_MAYBE (p, process()) {
      return p->pid();
    }
    return 0;
  }

 private:
  ReplayLaunch launch;
  kj::AutoCloseFd netns;   // the helper's network namespace (loopback)
  kj::AutoCloseFd userns;  // its user namespace, when it is not ours

  bool started = false;
  std::optional<ReplayStreamCheck> stream;  // the event stream's checks (replay-batch.h)

  ReplayStart started_(capnp::Response<schema::Replay::StartResults>&& response);
  void holdNamespace(ReplayStart& start);
};

kj::Promise<ReplayStart> ReplayLink::Impl::start(ReplayLaunch launchIn) {
  KJ_REQUIRE(!started, "ReplayLink::start called twice");
  started = true;
  return kj::evalNow([&]() -> kj::Promise<ReplayStart> {
    validateLaunch(launchIn);
    launch = kj::mv(launchIn);
    stream.emplace(launch);
    spawn(Spawn());

    auto sinkServer = newSink<schema::ReplaySink>(*stream, record);
    auto request = bootstrap<schema::Replay>().startRequest();
    fillConfig(launch, request.initConfig());
    request.setSink(kj::mv(sinkServer));
    return startAnswer<ReplayStart>(
        request.send(),
        [this](capnp::Response<schema::Replay::StartResults>&& response) {
          return started_(kj::mv(response));
        },
        true);
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
  setJob(response.getJob());
  record.originNs = start.originNs;
  record.port = start.port;
  streamOwed(true);  // listening: an end before done() is a loss
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
