#include "helpers/shim/shim-ledger-server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <kj/async-io.h>
#include <kj/compat/http.h>
#include <kj/debug.h>
#include <kj/io.h>

#include "helpers/common/clock.h"
#include "helpers/shim/shim-ledger.h"

namespace rea::helper {
namespace {

// One request body, read up to one byte past the limit (enough to know it is too long).
struct BodyBuffer {
  std::string text;
  char chunk[16384];
};

kj::Promise<bool> readBody(kj::AsyncInputStream& in, BodyBuffer& buffer) {
  size_t room = SHIM_REQUEST_BODY_LIMIT + 1 - buffer.text.size();
  return in.tryRead(buffer.chunk, 1, kj::min(sizeof(buffer.chunk), room))
      .then([&in, &buffer](size_t n) -> kj::Promise<bool> {
        if (n == 0) return true;
        buffer.text.append(buffer.chunk, n);
        if (buffer.text.size() > SHIM_REQUEST_BODY_LIMIT) return false;
        return readBody(in, buffer);
      });
}

// Writes one complete answer. `body` must outlive the returned promise (literals and the
// ledger's route JSON do; respondOwned() attaches the rest).
kj::Promise<void> respond(const kj::HttpHeaderTable& table, kj::HttpService::Response& response,
                          uint status, kj::StringPtr statusText, std::string_view body) {
  kj::HttpHeaders headers(table);
  headers.set(kj::HttpHeaderId::CONTENT_TYPE, "application/json");
  auto stream = response.send(status, statusText, headers, uint64_t(body.size()));
  auto written = stream->write(body.data(), body.size());
  return written.attach(kj::mv(stream));
}

kj::Promise<void> respondOwned(const kj::HttpHeaderTable& table,
                               kj::HttpService::Response& response, uint status,
                               kj::StringPtr statusText, std::string body) {
  auto owned = kj::heap<std::string>(std::move(body));
  std::string_view view = *owned;
  return respond(table, response, status, statusText, view).attach(kj::mv(owned));
}

class LedgerService final : public kj::HttpService {
 public:
  LedgerService(const kj::HttpHeaderTable& table, ShimLedger& ledger,
                kj::Function<uint64_t()>& nowNs)
      : table(table), ledger(ledger), nowNs(nowNs) {}

  // implements kj::HttpService ----------------------------------------------------------------
  kj::Promise<void> request(kj::HttpMethod method, kj::StringPtr url,
                            const kj::HttpHeaders& headers, kj::AsyncInputStream& requestBody,
                            Response& response) override {
    (void)headers;
    if (method != kj::HttpMethod::POST || url != "/invoke") {
      return respond(table, response, 404, "Not Found", R"({"error":"not found"})");
    }
    KJ_IF_MAYBE (length, requestBody.tryGetLength()) {
      if (*length > SHIM_REQUEST_BODY_LIMIT) return tooLarge(response);
    }
    auto buffer = kj::heap<BodyBuffer>();
    BodyBuffer& ref = *buffer;
    return readBody(requestBody, ref)
        .then([this, &response, &ref](bool withinLimit) -> kj::Promise<void> {
          if (!withinLimit) return tooLarge(response);
          std::optional<ShimInvocation> invocation = parseShimInvocation(ref.text);
          if (!invocation) {
            return respond(table, response, 400, "Bad Request",
                           R"({"error":"malformed shim request"})");
          }
          ShimAnswer answer = ledger.invoke(std::move(*invocation), nowNs());
          if (answer.outcome == ShimOutcome::MATCHED) {
            return respond(table, response, 200, "OK", answer.routeJson);
          }
          std::string body =
              std::string(R"({"outcome":")") + shimOutcomeName(answer.outcome) + R"("})";
          return respondOwned(table, response, 409, "Conflict", std::move(body));
        })
        .attach(kj::mv(buffer));
  }

 private:
  const kj::HttpHeaderTable& table;
  ShimLedger& ledger;
  kj::Function<uint64_t()>& nowNs;

  kj::Promise<void> tooLarge(Response& response) {
    return respond(table, response, 400, "Bad Request", R"({"error":"request body over 64 KiB"})");
  }
};

// Every request kj cannot parse is a malformed request: 400 (kj would say 501 for an unknown
// method). So is one whose body framing fails while it is read (a bad Content-Length, a broken
// chunk, the client hanging up inside its body): our own handling throws nothing else. Nothing
// is logged: the target may do this on purpose.
class LedgerErrors final : public kj::HttpServerErrorHandler {
 public:
  explicit LedgerErrors(const kj::HttpHeaderTable& table) : table(table) {}

  kj::Promise<void> handleClientProtocolError(kj::HttpHeaders::ProtocolError error,
                                              kj::HttpService::Response& response) override {
    (void)error;
    return respond(table, response, 400, "Bad Request", R"({"error":"malformed HTTP request"})");
  }

  kj::Promise<void> handleApplicationError(
      kj::Exception exception, kj::Maybe<kj::HttpService::Response&> response) override {
    (void)exception;
    KJ_IF_MAYBE (r, response) {
      return respond(table, *r, 400, "Bad Request", R"({"error":"malformed HTTP request"})");
    }
    return kj::READY_NOW;
  }

 private:
  const kj::HttpHeaderTable& table;
};

kj::HttpServerSettings ledgerSettings(LedgerErrors& errors) {
  kj::HttpServerSettings settings;
  settings.errorHandler = errors;
  // After a 400 for an oversized body, read and discard up to 1 MiB more so that the client
  // sees the answer instead of a connection reset.
  settings.canceledUploadGraceBytes = 1 << 20;
  return settings;
}

}  // namespace

struct ShimLedgerServer::Impl final : private kj::TaskSet::ErrorHandler {
  Impl(kj::LowLevelAsyncIoProvider& lowLevel, kj::Timer& timer, ShimLedger& ledger,
       kj::Function<uint64_t()> nowNs)
      : lowLevel(lowLevel),
        nowNs(kj::mv(nowNs)),
        service(table, ledger, this->nowNs),
        errors(table),
        httpServer(timer, table, service, ledgerSettings(errors)),
        tasks(*this) {}

  kj::LowLevelAsyncIoProvider& lowLevel;
  kj::Function<uint64_t()> nowNs;
  kj::HttpHeaderTable table;
  LedgerService service;
  LedgerErrors errors;
  kj::HttpServer httpServer;
  kj::Maybe<kj::Own<kj::ConnectionReceiver>> receiver;
  uint16_t boundPort = 0;
  kj::Maybe<kj::Exception> acceptFailure;
  kj::TaskSet tasks;  // last: destroyed first, cancelling the accept loop before the rest goes

  void taskFailed(kj::Exception&& exception) override { acceptFailure = kj::mv(exception); }
};

ShimLedgerServer::ShimLedgerServer(kj::LowLevelAsyncIoProvider& lowLevel, kj::Timer& timer,
                                   ShimLedger& ledger)
    : ShimLedgerServer(lowLevel, timer, ledger, monotonicNowNs) {}

ShimLedgerServer::ShimLedgerServer(kj::LowLevelAsyncIoProvider& lowLevel, kj::Timer& timer,
                                   ShimLedger& ledger, kj::Function<uint64_t()> nowNs)
    : impl(kj::heap<Impl>(lowLevel, timer, ledger, kj::mv(nowNs))) {}

ShimLedgerServer::~ShimLedgerServer() noexcept(false) {}

uint16_t ShimLedgerServer::start() {
  KJ_REQUIRE(impl->receiver == nullptr, "shim ledger server already started");
  int fd;
  KJ_SYSCALL(fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), "shim ledger");
  kj::AutoCloseFd owned(fd);
  struct sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  KJ_SYSCALL(bind(fd, reinterpret_cast<struct sockaddr*>(&address), sizeof(address)), "shim ledger",
             "127.0.0.1:0");
  KJ_SYSCALL(listen(fd, SOMAXCONN), "shim ledger");
  socklen_t length = sizeof(address);
  KJ_SYSCALL(getsockname(fd, reinterpret_cast<struct sockaddr*>(&address), &length), "shim ledger");
  impl->boundPort = ntohs(address.sin_port);

  auto receiver = impl->lowLevel.wrapListenSocketFd(
      kj::mv(owned),
      kj::LowLevelAsyncIoProvider::ALREADY_CLOEXEC | kj::LowLevelAsyncIoProvider::ALREADY_NONBLOCK);
  kj::ConnectionReceiver& ref = *receiver;
  impl->receiver = kj::mv(receiver);
  impl->tasks.add(impl->httpServer.listenHttp(ref));
  return impl->boundPort;
}

uint16_t ShimLedgerServer::port() const {
  KJ_REQUIRE(impl->receiver != nullptr, "shim ledger server not started");
  return impl->boundPort;
}

std::string ShimLedgerServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port()) + "/invoke";
}

kj::Maybe<const kj::Exception&> ShimLedgerServer::failure() const {
  KJ_IF_MAYBE (exception, impl->acceptFailure) {
    return *exception;
  }
  return nullptr;
}

}  // namespace rea::helper
