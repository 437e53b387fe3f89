#include "helpers/replay/replay-connection.h"

#include <kj/debug.h>

#include <cstring>
#include <string_view>

namespace rea::helper {
namespace {

using Direction = ProtocolEvent::Direction;
using Outcome = ProtocolEvent::Outcome;
using Kind = ReplayDiagnostic::Kind;

constexpr kj::Duration ERROR_WRITE_GRACE = 1 * kj::SECONDS;
constexpr kj::Duration LINGER = 1 * kj::SECONDS;

// The request-line and header size as the client sent it (give or take whitespace): what the
// header limit is about.
size_t headerBytes(kj::StringPtr url, const kj::HttpHeaders& headers) {
  size_t total = url.size() + 16;  // method, spaces, "HTTP/1.1", CRLF
  headers.forEach([&total](kj::StringPtr name, kj::StringPtr value) {
    total += name.size() + value.size() + 4;
  });
  return total;
}

bool isValidHandshake(kj::HttpMethod method, const kj::HttpHeaders& headers) {
  // What kj-http's acceptWebSocket() checks; checked here first so that a bad handshake is
  // answered 400 without counting as a WebSocket connection.
  if (method != kj::HttpMethod::GET) return false;
  if (headers.get(kj::HttpHeaderId::SEC_WEBSOCKET_VERSION).orDefault(nullptr) != "13") {
    return false;
  }
  return headers.get(kj::HttpHeaderId::SEC_WEBSOCKET_KEY) != nullptr;
}

bool isHeadersTooLarge(const kj::Exception& exception) {
  return strstr(exception.getDescription().cStr(), "headers too large") != nullptr;
}

bool statusHasNoBody(uint32_t status) {
  return status < 200 || status == 204 || status == 205 || status == 304;
}

// Reads a request body up to `limit` bytes; read() resolves false as soon as it is known to be
// longer (without reading the rest).
class BodyReader {
 public:
  BodyReader(kj::AsyncInputStream& input, uint64_t limit) : input_(input), limit_(limit) {}

  kj::Promise<bool> read() {
    KJ_IF_MAYBE (length, input_.tryGetLength()) {
      if (*length > limit_) return false;
    }
    return loop();
  }

  std::string data;

 private:
  kj::AsyncInputStream& input_;
  uint64_t limit_;
  kj::byte buffer_[16384];

  kj::Promise<bool> loop() {
    uint64_t room = limit_ + 1 - data.size();  // one byte past the limit proves "over"
    size_t want = room < sizeof(buffer_) ? static_cast<size_t>(room) : sizeof(buffer_);
    return input_.tryRead(buffer_, 1, want).then([this](size_t n) -> kj::Promise<bool> {
      if (n == 0) return true;
      data.append(reinterpret_cast<const char*>(buffer_), n);
      if (data.size() > limit_) return false;
      return loop();
    });
  }
};

}  // namespace

// Counts the bytes kj-http reads, so the connection can tell a request cut off from an idle
// connection closing.
class ReplayConnection::CountingStream final : public kj::AsyncIoStream {
 public:
  explicit CountingStream(kj::Own<kj::AsyncIoStream> socket) : socket_(kj::mv(socket)) {}

  uint64_t bytesRead() const { return bytesRead_; }
  kj::AsyncIoStream& socket() { return *socket_; }

  kj::Promise<size_t> tryRead(void* buffer, size_t minBytes, size_t maxBytes) override {
    return socket_->tryRead(buffer, minBytes, maxBytes).then([this](size_t n) {
      bytesRead_ += n;
      return n;
    });
  }
  kj::Promise<void> write(const void* buffer, size_t size) override {
    return socket_->write(buffer, size);
  }
  kj::Promise<void> write(kj::ArrayPtr<const kj::ArrayPtr<const kj::byte>> pieces) override {
    return socket_->write(pieces);
  }
  kj::Promise<void> whenWriteDisconnected() override { return socket_->whenWriteDisconnected(); }
  void shutdownWrite() override { socket_->shutdownWrite(); }
  void abortRead() override { socket_->abortRead(); }
  void getsockopt(int level, int option, void* value, kj::uint* length) override {
    socket_->getsockopt(level, option, value, length);
  }
  void setsockopt(int level, int option, const void* value, kj::uint length) override {
    socket_->setsockopt(level, option, value, length);
  }
  void getsockname(struct sockaddr* addr, kj::uint* length) override {
    socket_->getsockname(addr, length);
  }
  void getpeername(struct sockaddr* addr, kj::uint* length) override {
    socket_->getpeername(addr, length);
  }

 private:
  kj::Own<kj::AsyncIoStream> socket_;
  uint64_t bytesRead_ = 0;
};

namespace {

kj::HttpServerSettings connectionSettings(const ReplayState& state,
                                          kj::HttpServerErrorHandler& errorHandler,
                                          kj::HttpServerCallbacks& callbacks) {
  kj::HttpServerSettings settings;
  settings.headerTimeout = state.options.headerTimeout;
  settings.errorHandler = errorHandler;
  settings.callbacks = callbacks;
  return settings;
}

}  // namespace

ReplayConnection::ReplayConnection(ReplayState& state, kj::Own<kj::AsyncIoStream> socket)
    : state_(state),
      stream_(kj::heap<CountingStream>(kj::mv(socket))),
      server_(state.timer, state.headerTable, *this, connectionSettings(state, *this, *this)),
      idleSince_(state.timer.now()) {}

ReplayConnection::~ReplayConnection() noexcept(false) {}

kj::Promise<void> ReplayConnection::run() {
  kj::Own<kj::AsyncIoStream> borrowed(stream_.get(), kj::NullDisposer::instance);
  return server_.listenHttp(kj::mv(borrowed))
      .then([this]() { return connectionEnded(); },
            [this](kj::Exception&& exception) { return connectionFailed(kj::mv(exception)); })
      .then([this]() { return lingerOnClose_ ? lingeringClose() : kj::READY_NOW; });
}

kj::Promise<void> ReplayConnection::lingeringClose() {
  // We answered with an error and close while the client may still be sending (an over-limit
  // body, oversized headers). Closing a socket with unread input resets the connection, and the
  // reset can destroy our response before the client reads it; so stop sending, read and
  // discard what still arrives, and close at EOF or after LINGER (as nginx's lingering_close).
  kj::runCatchingExceptions([this]() { stream_->socket().shutdownWrite(); });
  return drain().exclusiveJoin(state_.timer.afterDelay(LINGER));
}

kj::Promise<void> ReplayConnection::drain() {
  return stream_->socket()
      .tryRead(drainBuffer_, 1, sizeof(drainBuffer_))
      .then([this](size_t n) { return n == 0 ? kj::READY_NOW : drain(); }, [](kj::Exception&&) {});
}

kj::Promise<void> ReplayConnection::request(kj::HttpMethod method, kj::StringPtr url,
                                            const kj::HttpHeaders& headers,
                                            kj::AsyncInputStream& requestBody,
                                            kj::HttpService::Response& response) {
  ++requestsInProgress_;
  auto ended = kj::defer([this]() { requestEnded(); });
  return dispatch(method, url, headers, requestBody, response).attach(kj::mv(ended));
}

void ReplayConnection::requestEnded() {
  if (requestsInProgress_ > 0) --requestsInProgress_;
  // Bytes kj-http read ahead past this request belong to the next one, which counts as
  // answered once it starts.
  bytesReadWhenIdle_ = stream_->bytesRead();
  idleSince_ = state_.timer.now();
}

kj::Promise<void> ReplayConnection::dispatch(kj::HttpMethod method, kj::StringPtr url,
                                             const kj::HttpHeaders& headers,
                                             kj::AsyncInputStream& requestBody,
                                             kj::HttpService::Response& response) {
  if (headerBytes(url, headers) > state_.options.maxHeaderBytes) {
    state_.note(Kind::HEADERS_TOO_LARGE,
                kj::str("request line and headers over ", state_.options.maxHeaderBytes,
                        " bytes (answered 431)")
                    .cStr());
    sendEmpty(response, 431, true);
    return kj::READY_NOW;
  }
  // B §8.2 rule 1. `url` and `headers` die at the first body read: copy what is needed.
  std::string path(pathWithoutQuery(std::string_view(url.begin(), url.size())));
  if (headers.isWebSocket()) return webSocket(method, path, headers, response);
  std::string methodName(kj::str(method).cStr());
  auto headerList = kj::heap<HeaderList>();
  headers.forEach([&headerList](kj::StringPtr name, kj::StringPtr value) {
    headerList->emplace_back(std::string(name.cStr()), std::string(value.cStr()));
  });

  auto reader = kj::heap<BodyReader>(requestBody, state_.limits.protocolBodyBytes);
  auto read = state_.timer.timeoutAfter(state_.options.bodyTimeout, reader->read());
  auto& readerRef = *reader;
  auto& headerRef = *headerList;
  bool head = method == kj::HttpMethod::HEAD;
  return read
      .then(
          [this, &response, &readerRef, &headerRef, methodName, path,
           head](bool withinLimit) mutable -> kj::Promise<void> {
            if (!withinLimit) {
              // B §8.2 rule 2: truncated, 413, a request event, stop. The rest of the body is
              // never read, so the connection closes after the response.
              state_.recorder.markBodyOverLimit();
              sendEmpty(response, 413, true);
              recordRequest(methodName, path, BODY_OVER_LIMIT, Outcome::UNMATCHED);
              return kj::READY_NOW;
            }
            return answer(response, kj::mv(methodName), kj::mv(path), headerRef, readerRef.data,
                          head);
          },
          [this, &response](kj::Exception&& exception) -> kj::Promise<void> {
            if (exception.getType() == kj::Exception::Type::OVERLOADED) {
              state_.note(Kind::BODY_TIMEOUT, kj::str("request body not complete within ",
                                                      state_.options.bodyTimeout / kj::MILLISECONDS,
                                                      " ms (answered 408)")
                                                  .cStr());
              sendEmpty(response, 408, true);
              return kj::READY_NOW;
            }
            // The client ended or broke the body: nobody is left to answer.
            state_.note(Kind::INCOMPLETE_REQUEST, "request body ended early (connection closed)");
            closingByServer_ = true;
            return KJ_EXCEPTION(DISCONNECTED, "replay: request body ended early");
          })
      .attach(kj::mv(reader), kj::mv(headerList));
}

kj::Promise<void> ReplayConnection::answer(kj::HttpService::Response& response, std::string method,
                                           std::string path, const HeaderList& headers,
                                           const std::string& body, bool head) {
  std::vector<RequestHeader> view;
  view.reserve(headers.size());
  for (auto& [name, value] : headers)
    view.push_back({name, value});
  RouteMatcher::Result result = state_.matcher.match(method, path, view, body);
  std::string data = body.empty() ? std::string() : std::string(REDACTED_REQUEST_BODY);
  switch (result.verdict) {
    case RouteMatcher::Verdict::UNMATCHED:
      recordRequest(method, path, std::move(data), Outcome::UNMATCHED);
      sendEmpty(response, 404, false);
      return kj::READY_NOW;
    case RouteMatcher::Verdict::EXHAUSTED:
      recordRequest(method, path, std::move(data), Outcome::SCRIPT_EXHAUSTED);
      sendEmpty(response, 409, false);
      return kj::READY_NOW;
    case RouteMatcher::Verdict::MATCHED:
      break;
  }
  recordRequest(method, path, std::move(data), Outcome::MATCHED);
  const HttpRoute& route = *result.route;
  kj::Promise<void> delay = kj::READY_NOW;
  if (route.delayMs > 0) delay = delayAtLeast(state_.timer, state_.clock, route.delayMs);
  return delay.then([this, &response, &route, method = kj::mv(method), path = kj::mv(path),
                     head]() -> kj::Promise<void> {
    if (route.disconnect) {
      // Rule 5: destroy the connection (no response at all), then record.
      closingByServer_ = true;
      state_.recorder.record(ProtocolEvent::Protocol::HTTP, Direction::RESPONSE, method, path, "",
                             Outcome::DISCONNECTED);
      return KJ_EXCEPTION(DISCONNECTED, "replay: route disconnects");
    }
    // Recorded whether or not the client took the whole response: it went out as far as the
    // client let it. (Lambdas are passed by value: kj::Promise::then() keeps an lvalue by
    // reference.)
    auto recordResponse = [this, &route, method, path]() {
      state_.recorder.record(ProtocolEvent::Protocol::HTTP, Direction::RESPONSE, method, path,
                             route.body, Outcome::MATCHED);
    };
    auto onError = [recordResponse](kj::Exception&& exception) {
      recordResponse();
      kj::throwFatalException(kj::mv(exception));
    };
    return sendRoute(response, route, head).then(kj::mv(recordResponse), kj::mv(onError));
  });
}

kj::Promise<void> ReplayConnection::sendRoute(kj::HttpService::Response& response,
                                              const HttpRoute& route, bool head) {
  kj::HttpHeaders headers(state_.headerTable);
  for (auto& [name, value] : route.responseHeaders) {
    headers.add(kj::StringPtr(name.c_str(), name.size()),
                kj::StringPtr(value.c_str(), value.size()));
  }
  bool noBody = statusHasNoBody(route.status);
  uint64_t length = noBody ? 0 : route.body.size();
  auto stream = response.send(route.status, statusReason(route.status), headers, length);
  if (noBody || head || route.body.empty()) return kj::READY_NOW;
  auto write = stream->write(route.body.data(), route.body.size());
  return write.attach(kj::mv(stream));
}

void ReplayConnection::sendEmpty(kj::HttpService::Response& response, uint32_t status, bool close) {
  if (close) endAfterThisRequest();
  closeAfterResponse_ = close;
  kj::HttpHeaders headers(state_.headerTable);
  response.send(status, statusReason(status), headers, uint64_t(0));
  closeAfterResponse_ = false;
}

void ReplayConnection::endAfterThisRequest() {
  closingByServer_ = lingerOnClose_ = true;
  // shouldClose() only adds "Connection: close" in this kj-http; draining this connection's own
  // server is what makes it stop reading requests once the current one is answered.
  if (drainTask_ == nullptr) {
    drainTask_ = server_.drain().eagerlyEvaluate([](kj::Exception&&) {});
  }
}

void ReplayConnection::recordRequest(const std::string& method, const std::string& path,
                                     std::string data, ProtocolEvent::Outcome outcome) {
  state_.recorder.record(ProtocolEvent::Protocol::HTTP, Direction::REQUEST, method, path,
                         std::move(data), outcome);
}

kj::Promise<void> ReplayConnection::webSocket(kj::HttpMethod method, const std::string& path,
                                              const kj::HttpHeaders& headers,
                                              kj::HttpService::Response& response) {
  if (path != "/ws") {
    // B §8.3: refused by destroying the socket, no event.
    closingByServer_ = true;
    return KJ_EXCEPTION(DISCONNECTED, "replay: WebSocket upgrade outside /ws refused");
  }
  if (!isValidHandshake(method, headers)) {
    state_.note(Kind::BAD_WEBSOCKET_HANDSHAKE,
                "upgrade request without GET, Sec-WebSocket-Version 13 or Sec-WebSocket-Key "
                "(answered 400)");
    sendEmpty(response, 400, true);
    return kj::READY_NOW;
  }
  uint32_t number = ++state_.webSocketConnections;
  auto socket = response.acceptWebSocket(kj::HttpHeaders(state_.headerTable));
  if (number > state_.limits.connections) {
    // B §8.3: truncated, terminated, no event.
    state_.recorder.markConnectionCap();
    closingByServer_ = true;
    return WebSocketSession::terminate(state_.timer, kj::mv(socket));
  }
  auto session =
      kj::heap<WebSocketSession>(state_.sessionContext, kj::mv(socket), state_.scriptFor(number));
  auto done = session->run();
  return done.attach(kj::mv(session));
}

kj::Promise<void> ReplayConnection::connectionEnded() {
  if (closingByServer_ || requestsInProgress_ > 0) return kj::READY_NOW;
  if (stream_->bytesRead() <= bytesReadWhenIdle_) return kj::READY_NOW;  // closed while idle
  // Judged on kj's timer, the clock kj-http's header deadline is set and fired by: it counts
  // from when the loop last woke, so the precise clock can show a little less than the limit
  // when the deadline fires, and a client cut off by kj would be noted as incomplete.
  if (state_.timer.now() - idleSince_ >= state_.options.headerTimeout) {
    state_.note(Kind::HEADER_TIMEOUT,
                kj::str("request headers not complete within ",
                        state_.options.headerTimeout / kj::MILLISECONDS, " ms (closed)")
                    .cStr());
  } else {
    state_.note(Kind::INCOMPLETE_REQUEST, "connection closed in the middle of a request");
  }
  return kj::READY_NOW;
}

kj::Promise<void> ReplayConnection::connectionFailed(kj::Exception&& exception) {
  if (exception.getType() == kj::Exception::Type::DISCONNECTED) return connectionEnded();
  if (isHeadersTooLarge(exception)) {
    // Thrown past the error handler: no response was started. Answer on the raw socket.
    state_.note(Kind::HEADERS_TOO_LARGE, "request headers over kj-http's buffer (answered 431)");
    closingByServer_ = lingerOnClose_ = true;
    return writeRaw431();
  }
  state_.note(Kind::CONNECTION_ERROR,
              kj::str("connection failed (", exception.getType(), "); closed").cStr());
  return kj::READY_NOW;
}

kj::Promise<void> ReplayConnection::writeRaw431() {
  static const char TOO_LARGE[] =
      "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n"
      "Content-Length: 0\r\n\r\n";
  return stream_->socket()
      .write(TOO_LARGE, sizeof(TOO_LARGE) - 1)
      .catch_([](kj::Exception&&) {})
      .exclusiveJoin(state_.timer.afterDelay(ERROR_WRITE_GRACE));
}

kj::Promise<void> ReplayConnection::handleClientProtocolError(
    kj::HttpHeaders::ProtocolError protocolError, kj::HttpService::Response& response) {
  // kj's description is its own fixed sentence, never the client's bytes.
  closingByServer_ = lingerOnClose_ = true;
  state_.note(Kind::BAD_REQUEST, kj::str("unparseable request (answered ", protocolError.statusCode,
                                         "): ", protocolError.description)
                                     .cStr());
  return response.sendError(protocolError.statusCode, protocolError.statusMessage,
                            state_.headerTable);
}

kj::Promise<void> ReplayConnection::handleApplicationError(
    kj::Exception exception, kj::Maybe<kj::HttpService::Response&> response) {
  // DISCONNECTED: our own "destroy the connection" (disconnect routes, refused upgrades, cut-off
  // bodies; those set closingByServer_ before throwing) or the client vanishing in the middle of
  // a request (connectionEnded() notes it). Either way: no response, close.
  if (exception.getType() == kj::Exception::Type::DISCONNECTED) return kj::READY_NOW;
  closingByServer_ = lingerOnClose_ = true;
  bool tooLarge = isHeadersTooLarge(exception);
  if (tooLarge) {
    // kj-http's header buffer (128 KiB here) overflowed before the request reached us.
    state_.note(Kind::HEADERS_TOO_LARGE, "request headers over kj-http's buffer (answered 431)");
  } else {
    state_.note(Kind::CONNECTION_ERROR,
                kj::str("request failed (", exception.getType(), "); closed").cStr());
    KJ_LOG(WARNING, "replay request failed", exception);
  }
  uint32_t status = tooLarge ? 431 : 500;
  KJ_IF_MAYBE (r, response) {
    // Fails when a response or a WebSocket upgrade had already started: then just close.
    auto& table = state_.headerTable;
    return kj::evalNow(
               [r, &table, status]() { return r->sendError(status, statusReason(status), table); })
        .catch_([](kj::Exception&&) {});
  }
  return tooLarge ? writeRaw431() : kj::READY_NOW;
}

kj::Promise<void> ReplayConnection::handleNoResponse(kj::HttpService::Response& response) {
  closingByServer_ = true;
  state_.note(Kind::CONNECTION_ERROR, "request ended without a response (answered 500)");
  return response.sendError(500, "Internal Server Error", state_.headerTable);
}

bool ReplayConnection::shouldClose() {
  return closeAfterResponse_;
}

}  // namespace rea::helper
