#include "helpers/replay/replay-server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <kj/debug.h>
#include <kj/io.h>

#include "helpers/replay/replay-connection.h"
#include "helpers/replay/replay-state.h"

namespace rea::helper {
namespace {

constexpr kj::Duration ACCEPT_RETRY_DELAY = 10 * kj::MILLISECONDS;

}  // namespace

class ReplayServer::Impl final : public kj::TaskSet::ErrorHandler {
 public:
  Impl(kj::AsyncIoContext& io, ReplayPlan plan, ReplayLimits limits,
       const kj::MonotonicClock& clock, ReplayServerOptions options)
      : io_(io), state_(io.provider->getTimer(), clock, kj::mv(plan), limits, options) {}

  uint16_t listen() {
    KJ_REQUIRE(listener_.get() == nullptr && !closed_, "ReplayServer::listen() called twice");
    int fd;
    KJ_SYSCALL(fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0),
               "replay listening socket");
    kj::AutoCloseFd owned(fd);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    KJ_SYSCALL(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
               "bind 127.0.0.1:0");
    KJ_SYSCALL(::listen(fd, SOMAXCONN), "listen on 127.0.0.1");
    socklen_t length = sizeof(address);
    KJ_SYSCALL(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length));
    port_ = ntohs(address.sin_port);
    listener_ = io_.lowLevelProvider->wrapListenSocketFd(
        owned.release(), kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP |
                             kj::LowLevelAsyncIoProvider::ALREADY_CLOEXEC |
                             kj::LowLevelAsyncIoProvider::ALREADY_NONBLOCK);
    acceptLoop_ = acceptLoop().eagerlyEvaluate(
        [](kj::Exception&& e) { KJ_LOG(ERROR, "replay accept loop ended", e); });
    return port_;
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    acceptLoop_ = nullptr;
    // Dropping the tasks cancels every request and WebSocket session and closes every
    // connection's socket: open WebSocket clients are terminated (B §8.4).
    connections_ = nullptr;
    listener_ = nullptr;
  }

  ReplayState& state() { return state_; }
  const ReplayState& state() const { return state_; }
  uint16_t port() const { return port_; }
  uint32_t open() const { return open_; }

 private:
  kj::AsyncIoContext& io_;
  ReplayState state_;
  uint16_t port_ = 0;
  bool closed_ = false;
  uint32_t open_ = 0;
  kj::Own<kj::ConnectionReceiver> listener_;
  kj::Own<kj::TaskSet> connections_ = kj::heap<kj::TaskSet>(*this);
  kj::Promise<void> acceptLoop_ = nullptr;

  kj::Promise<void> acceptLoop() {
    return listener_->accept().then(
        [this](kj::Own<kj::AsyncIoStream> socket) {
          serve(kj::mv(socket));
          return acceptLoop();
        },
        [this](kj::Exception&& exception) {
          // EMFILE and friends: note it, breathe, go on accepting.
          state_.note(ReplayDiagnostic::Kind::CONNECTION_ERROR,
                      kj::str("accept failed (", exception.getType(), "); retrying").cStr());
          return state_.timer.afterDelay(ACCEPT_RETRY_DELAY).then([this]() {
            return acceptLoop();
          });
        });
  }

  void serve(kj::Own<kj::AsyncIoStream> socket) {
    if (open_ >= state_.options.maxOpenConnections) {
      state_.note(ReplayDiagnostic::Kind::CONNECTION_LIMIT,
                  kj::str("more than ", state_.options.maxOpenConnections,
                          " connections open at once (closed at accept)")
                      .cStr());
      return;  // dropping the socket closes it
    }
    ++open_;
    auto connection = kj::heap<ReplayConnection>(state_, kj::mv(socket));
    auto done = connection->run();
    connections_->add(done.attach(kj::mv(connection), kj::defer([this]() { --open_; })));
  }

  void taskFailed(kj::Exception&& exception) override {
    // ReplayConnection::run() handles its own failures; reaching here is a bug.
    state_.note(ReplayDiagnostic::Kind::CONNECTION_ERROR,
                kj::str("connection task failed (", exception.getType(), ")").cStr());
    KJ_LOG(ERROR, "replay connection task failed", exception);
  }
};

ReplayServer::ReplayServer(kj::AsyncIoContext& io, ReplayPlan plan, ReplayLimits limits,
                           const kj::MonotonicClock& clock, ReplayServerOptions options)
    : impl_(kj::heap<Impl>(io, kj::mv(plan), limits, clock, options)) {}

ReplayServer::~ReplayServer() noexcept(false) {
  impl_->close();
}

uint16_t ReplayServer::listen() {
  return impl_->listen();
}

uint16_t ReplayServer::port() const {
  return impl_->port();
}

std::string ReplayServer::httpUrl() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port());
}

std::string ReplayServer::websocketUrl() const {
  return "ws://127.0.0.1:" + std::to_string(impl_->port()) + "/ws";
}

void ReplayServer::close() {
  impl_->close();
}

ProtocolRecorder& ReplayServer::recorder() {
  return impl_->state().recorder;
}

const ReplayDiagnostics& ReplayServer::diagnostics() const {
  return impl_->state().diagnostics;
}

uint32_t ReplayServer::openConnections() const {
  return impl_->open();
}

}  // namespace rea::helper
