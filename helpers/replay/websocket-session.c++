#include "helpers/replay/websocket-session.h"

#include <kj/debug.h>

#include <cstring>
#include <string_view>

#include "evidence/utf.h"
#include "helpers/replay/replay-state.h"

namespace rea::helper {
namespace {

using Direction = ProtocolEvent::Direction;
using Outcome = ProtocolEvent::Outcome;
using Kind = ReplayDiagnostic::Kind;

constexpr kj::Duration TERMINATE_GRACE = 1 * kj::SECONDS;

uint16_t closeReplyCode(uint16_t received) {
  // RFC 6455 §5.5.1: echo the client's code. 1005 ("no code") is echoed as an empty Close;
  // codes that may not appear on the wire (1004, 1006, 1015, unassigned) get 1002.
  if (received == 1005) return 1005;
  bool sendable = (received >= 1000 && received <= 1003) ||
                  (received >= 1007 && received <= 1014) || (received >= 3000 && received <= 4999);
  return sendable ? received : 1002;
}

}  // namespace

WebSocketSession::WebSocketSession(WebSocketSessionContext& context, kj::Own<kj::WebSocket> socket,
                                   kj::Maybe<const WebSocketScript&> script)
    : socket_(kj::mv(socket)), context_(context), script_(script) {}

WebSocketSession::~WebSocketSession() noexcept(false) {}

kj::WebSocket& WebSocketSession::socket() {
  return *KJ_ASSERT_NONNULL(socket_, "WebSocket used after the session ended");
}

kj::Promise<void> WebSocketSession::terminate(kj::Timer& timer, kj::Own<kj::WebSocket> socket) {
  // kj-http queues the 101 response on the event loop; evalLast() runs after it was written,
  // so the client sees the upgrade succeed and then the connection drop, as with `ws`. The
  // socket is dropped inside the chain: kj-http requires it gone before the handler completes.
  auto& ref = *socket;
  auto holder = kj::heap<kj::Own<kj::WebSocket>>(kj::mv(socket));
  auto& held = *holder;
  return kj::evalLast([&ref]() { return ref.disconnect(); })
      .catch_([](kj::Exception&&) {})
      .exclusiveJoin(timer.afterDelay(TERMINATE_GRACE))
      .then([&held]() { held = nullptr; })
      .attach(kj::mv(holder));
}

void WebSocketSession::recordEvent(Direction direction, std::string data, Outcome outcome) {
  context_.recorder.record(ProtocolEvent::Protocol::WEBSOCKET, direction, std::nullopt,
                           std::string("/ws"), std::move(data), outcome);
}

kj::Promise<void> WebSocketSession::run() {
  const WebSocketScript* script = nullptr;
  KJ_IF_MAYBE (s, script_) {
    script = s;
  }
  if (script == nullptr) {
    recordEvent(Direction::SENT, "", Outcome::SCRIPT_EXHAUSTED);
    auto socket = kj::mv(KJ_ASSERT_NONNULL(socket_));
    socket_ = nullptr;
    return terminate(context_.timer, kj::mv(socket));
  }

  auto paf = kj::newPromiseAndFulfiller<void>();
  ended_ = kj::mv(paf.fulfiller);
  scriptTask_ = playScript(0).eagerlyEvaluate([](kj::Exception&& e) {
    // The script's own steps swallow socket errors; anything else is a bug worth a log line.
    KJ_LOG(ERROR, "replay WebSocket script failed", e);
  });
  return receiveLoop().exclusiveJoin(kj::mv(paf.promise)).then([this]() {
    // Cancel everything that still refers to the socket, then drop it: kj-http requires the
    // WebSocket to be gone before the request handler completes.
    scriptTask_ = nullptr;
    sendTail_ = kj::READY_NOW;
    socket_ = nullptr;
  });
}

kj::Promise<void> WebSocketSession::enqueue(kj::Function<kj::Promise<void>()> operation) {
  auto result =
      sendTail_.then([operation = kj::mv(operation)]() mutable { return operation(); }).fork();
  sendTail_ = result.addBranch().catch_([](kj::Exception&&) {});
  return result.addBranch();
}

kj::Promise<void> WebSocketSession::receiveLoop() {
  // kj-http refuses a message of exactly maxSize bytes, while the limit allows it: ask for one
  // more. evalNow(): receive() parses frames already buffered synchronously and can throw
  // right here; the error must reach the handler below like any other.
  return kj::evalNow([this]() { return socket().receive(context_.maxMessageBytes + 1); })
      .then(
          [this](kj::WebSocket::Message&& message) -> kj::Promise<void> {
            KJ_SWITCH_ONEOF(message) {
              KJ_CASE_ONEOF(text, kj::String) {
                std::string_view bytes(text.begin(), text.size());
                if (!evidence::isValidUtf8(bytes)) {
                  // RFC 6455 §8.1 (and `ws`): a text frame must be UTF-8; close with 1007.
                  return failConnection(Kind::WEBSOCKET_PROTOCOL_ERROR,
                                        "text message is not valid UTF-8 (closed with 1007)", 1007);
                }
                recordEvent(Direction::RECEIVED, std::string(bytes), Outcome::MATCHED);
                return receiveLoop();
              }
              KJ_CASE_ONEOF(data, kj::Array<kj::byte>) {
                std::string_view bytes(reinterpret_cast<const char*>(data.begin()), data.size());
                recordEvent(Direction::RECEIVED, evidence::sanitizeUtf8(bytes), Outcome::MATCHED);
                return receiveLoop();
              }
              KJ_CASE_ONEOF(close, kj::WebSocket::Close) {
                open_ = false;
                if (closeSent_) return kj::READY_NOW;  // the client answered our Close
                closeSent_ = true;
                uint16_t code = closeReplyCode(close.code);
                return enqueue([this, code]() { return socket().close(code, ""); })
                    .catch_([](kj::Exception&&) {})
                    .exclusiveJoin(context_.timer.afterDelay(context_.closeTimeout));
              }
            }
            KJ_UNREACHABLE;
          },
          [this](kj::Exception&& exception) { return onReceiveError(kj::mv(exception)); });
}

kj::Promise<void> WebSocketSession::onReceiveError(kj::Exception&& exception) {
  open_ = false;
  if (exception.getType() == kj::Exception::Type::DISCONNECTED) {
    return kj::READY_NOW;  // the client went away (EOF or reset): nothing to answer
  }
  if (strstr(exception.getDescription().cStr(), "too large") != nullptr) {
    return failConnection(Kind::WEBSOCKET_MESSAGE_TOO_LARGE,
                          kj::str("message larger than protocol_body_bytes = ",
                                  context_.maxMessageBytes, " (closed with 1009)")
                              .cStr(),
                          1009);
  }
  return failConnection(Kind::WEBSOCKET_PROTOCOL_ERROR,
                        "invalid WebSocket frame (closed with 1002)", 1002);
}

kj::Promise<void> WebSocketSession::failConnection(ReplayDiagnostic::Kind kind, std::string detail,
                                                   uint16_t code) {
  open_ = false;
  context_.diagnostics.add(monotonicNs(context_.clock), kind, std::move(detail));
  if (closeSent_) return kj::READY_NOW;
  closeSent_ = true;
  return enqueue([this, code]() { return socket().close(code, ""); })
      .catch_([](kj::Exception&&) {})
      .exclusiveJoin(context_.timer.afterDelay(context_.closeTimeout));
}

kj::Promise<void> WebSocketSession::playScript(size_t index) {
  const WebSocketScript& script = KJ_ASSERT_NONNULL(script_);
  if (index == script.messages.size()) {
    if (!script.disconnectAfter || !open_) return kj::READY_NOW;
    open_ = false;
    closeSent_ = true;
    return enqueue([this]() { return socket().close(1000, ""); })
        .then(
            [this]() {
              recordEvent(Direction::SENT, "", Outcome::DISCONNECTED);
              // The receive loop ends the session when the client answers; do not wait forever.
              return context_.timer.afterDelay(context_.closeTimeout).then([this]() {
                ended_->fulfill();
              });
            },
            [](kj::Exception&&) {});
  }
  const WebSocketMessage& message = script.messages[index];
  return delayAtLeast(context_.timer, context_.clock, message.delayMs)
      .then([this, index, &message]() -> kj::Promise<void> {
        if (!open_) return kj::READY_NOW;  // B §8.3: stop silently
        return enqueue([this, &message]() {
                 return socket().send(
                     kj::ArrayPtr<const char>(message.data.data(), message.data.size()));
               })
            .then(
                [this, index, &message]() {
                  recordEvent(Direction::SENT, message.data, Outcome::MATCHED);
                  return playScript(index + 1);
                },
                [this](kj::Exception&&) { open_ = false; });
      });
}

}  // namespace rea::helper
