#pragma once
// ReplayConnection: one accepted TCP connection of the replay server. It owns the socket and a
// kj::HttpServer of its own (cheap, and it lets the error handler and the "close after this
// response" decision know which connection they are about), answers each request as SPEC B
// §8.2 says, hands WebSocket upgrades on /ws to a WebSocketSession (B §8.3), and notes in the
// diagnostics what kj-http did on its own: unparseable requests, headers too large, requests cut
// off or too slow. Internal to the replay server.
//
// Errors: run() never rejects; every failure closes this connection and becomes a diagnostic.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <kj/async-io.h>
#include <kj/compat/http.h>

#include "helpers/replay/replay-state.h"

namespace rea::helper {

class ReplayConnection final : public kj::HttpService,
                               private kj::HttpServerErrorHandler,
                               private kj::HttpServerCallbacks {
 public:
  ReplayConnection(ReplayState& state, kj::Own<kj::AsyncIoStream> socket);
  ~ReplayConnection() noexcept(false);
  KJ_DISALLOW_COPY(ReplayConnection);

  kj::Promise<void> run();
  // Serves the connection until the client closes it, the server closes it after an error or a
  // `disconnect` route, or the promise is dropped (server close). Call once.

  // implements kj::HttpService --------------------------------------------------------------
  kj::Promise<void> request(kj::HttpMethod method, kj::StringPtr url,
                            const kj::HttpHeaders& headers, kj::AsyncInputStream& requestBody,
                            kj::HttpService::Response& response) override;

 private:
  class CountingStream;
  using HeaderList = std::vector<std::pair<std::string, std::string>>;

  ReplayState& state_;
  kj::Own<CountingStream> stream_;
  kj::HttpServer server_;
  bool closeAfterResponse_ = false;  // read by shouldClose() while a response starts
  bool closingByServer_ = false;     // we decided to end the connection (no diagnostic then)
  bool lingerOnClose_ = false;       // we answered an error and close: drain input first
  uint32_t requestsInProgress_ = 0;
  uint64_t bytesReadWhenIdle_ = 0;  // bytes read when the last request ended
  kj::TimePoint idleSince_;         // accept time, or when the last request ended (kj's timer)
  kj::byte drainBuffer_[4096];
  kj::Maybe<kj::Promise<void>> drainTask_;  // server_.drain(), once we decided to close

  kj::Promise<void> dispatch(kj::HttpMethod method, kj::StringPtr url,
                             const kj::HttpHeaders& headers, kj::AsyncInputStream& requestBody,
                             kj::HttpService::Response& response);
  kj::Promise<void> answer(kj::HttpService::Response& response, std::string method,
                           std::string path, const HeaderList& headers, const std::string& body,
                           bool head);
  kj::Promise<void> webSocket(kj::HttpMethod method, const std::string& path,
                              const kj::HttpHeaders& headers, kj::HttpService::Response& response);
  kj::Promise<void> sendRoute(kj::HttpService::Response& response, const HttpRoute& route,
                              bool head);
  void sendEmpty(kj::HttpService::Response& response, uint32_t status, bool close);
  void endAfterThisRequest();
  void recordRequest(const std::string& method, const std::string& path, std::string data,
                     ProtocolEvent::Outcome outcome);
  void requestEnded();
  kj::Promise<void> connectionEnded();
  kj::Promise<void> connectionFailed(kj::Exception&& exception);
  kj::Promise<void> writeRaw431();
  kj::Promise<void> lingeringClose();
  kj::Promise<void> drain();

  // implements kj::HttpServerErrorHandler ---------------------------------------------------
  kj::Promise<void> handleClientProtocolError(kj::HttpHeaders::ProtocolError protocolError,
                                              kj::HttpService::Response& response) override;
  kj::Promise<void> handleApplicationError(kj::Exception exception,
                                           kj::Maybe<kj::HttpService::Response&> response) override;
  kj::Promise<void> handleNoResponse(kj::HttpService::Response& response) override;

  // implements kj::HttpServerCallbacks ------------------------------------------------------
  bool shouldClose() override;
};

}  // namespace rea::helper
