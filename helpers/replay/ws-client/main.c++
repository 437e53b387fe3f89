// rea-ws-client: a small WebSocket client on kj-http, used by the replay tests (and handy by
// hand) as the target's client. It connects to a ws:// URL, sends the given messages in order,
// prints what it receives and exits when the server closes or drops the connection.
//
//   rea-ws-client [--send TEXT]... [--send-binary TEXT]... [--close-after N] [--timeout-ms N]
//                 ws://HOST:PORT/PATH
//
// stdout, one line each: "# open" after the handshake, every received text message as is
// (binary messages as "# binary " + the bytes), then "# close CODE" when the server sent Close
// (answered with the same code), "# disconnected" when the connection dropped without one,
// "# refused STATUS" when the server answered the upgrade with a plain HTTP response.
// `--close-after N`: send Close after N received messages (0: right after sending).
// Exit: 0 server closed or dropped the connection (or we closed after N messages), 1 connection
// or handshake failure, 2 usage, 4 timeout (default 10 s).

#include <sys/random.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <kj/async-io.h>
#include <kj/compat/http.h>
#include <kj/debug.h>

namespace {

class GetrandomEntropy final : public kj::EntropySource {
 public:
  void generate(kj::ArrayPtr<kj::byte> buffer) override {
    size_t done = 0;
    while (done < buffer.size()) {
      ssize_t n = getrandom(buffer.begin() + done, buffer.size() - done, 0);
      KJ_ASSERT(n > 0, "getrandom failed", strerror(errno));
      done += static_cast<size_t>(n);
    }
  }
};

struct Message {
  std::string data;
  bool binary;
};

struct Options {
  std::vector<Message> send;
  long closeAfter = -1;
  long timeoutMs = 10000;
  std::string hostPort;
  std::string path;
};

int usage() {
  fprintf(stderr,
          "usage: rea-ws-client [--send TEXT]... [--send-binary TEXT]... [--close-after N] "
          "[--timeout-ms N] ws://HOST:PORT/PATH\n");
  return 2;
}

bool parseUrl(const std::string& url, Options& options) {
  const std::string scheme = "ws://";
  if (url.compare(0, scheme.size(), scheme) != 0) return false;
  std::string rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  options.hostPort = rest.substr(0, slash);
  options.path = slash == std::string::npos ? "/" : rest.substr(slash);
  return !options.hostPort.empty();
}

void printLine(const std::string& line) {
  fwrite(line.data(), 1, line.size(), stdout);
  fputc('\n', stdout);
  fflush(stdout);
}

// One open connection: sends the messages, then receives until the server closes.
class Session {
 public:
  Session(kj::WebSocket& socket, const Options& options) : socket_(socket), options_(options) {}

  kj::Promise<int> run() {
    sending_ = sendFrom(0)
                   .then([this]() { return options_.closeAfter == 0 ? closeNow() : kj::READY_NOW; })
                   .eagerlyEvaluate([](kj::Exception&&) {});
    return receiveLoop();
  }

 private:
  kj::WebSocket& socket_;
  const Options& options_;
  long received_ = 0;
  bool closing_ = false;
  kj::Promise<void> sending_ = nullptr;

  kj::Promise<void> sendFrom(size_t index) {
    if (index == options_.send.size()) return kj::READY_NOW;
    const Message& m = options_.send[index];
    kj::Promise<void> sent =
        m.binary ? socket_.send(kj::arrayPtr(reinterpret_cast<const kj::byte*>(m.data.data()),
                                             m.data.size()))
                 : socket_.send(kj::ArrayPtr<const char>(m.data.data(), m.data.size()));
    return sent.then([this, index]() { return sendFrom(index + 1); });
  }

  kj::Promise<void> closeNow() {
    if (closing_) return kj::READY_NOW;
    closing_ = true;
    return socket_.close(1000, "");
  }

  kj::Promise<int> receiveLoop() {
    // evalNow(): receive() can throw synchronously on frames already buffered.
    return kj::evalNow([this]() { return socket_.receive(); })
        .then(
            [this](kj::WebSocket::Message&& message) -> kj::Promise<int> {
              KJ_SWITCH_ONEOF(message) {
                KJ_CASE_ONEOF(text, kj::String) {
                  printLine(std::string(text.begin(), text.size()));
                }
                KJ_CASE_ONEOF(bytes, kj::Array<kj::byte>) {
                  printLine("# binary " + std::string(reinterpret_cast<const char*>(bytes.begin()),
                                                      bytes.size()));
                }
                KJ_CASE_ONEOF(close, kj::WebSocket::Close) {
                  printLine("# close " + std::to_string(close.code));
                  if (closing_) return 0;  // the server answered our Close
                  closing_ = true;
                  uint16_t code = close.code == 1005 ? 1000 : close.code;
                  return sending_.then([this, code]() { return socket_.close(code, ""); })
                      .then([]() { return 0; }, [](kj::Exception&&) { return 0; });
                }
              }
              ++received_;
              if (options_.closeAfter > 0 && received_ == options_.closeAfter) {
                return closeNow().then([this]() { return receiveLoop(); });
              }
              return receiveLoop();
            },
            [](kj::Exception&&) -> kj::Promise<int> {
              printLine("# disconnected");
              return 0;
            });
  }
};

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--send" || arg == "--send-binary") && i + 1 < argc) {
      options.send.push_back({argv[++i], arg == "--send-binary"});
    } else if (arg == "--close-after" && i + 1 < argc) {
      options.closeAfter = std::strtol(argv[++i], nullptr, 10);
    } else if (arg == "--timeout-ms" && i + 1 < argc) {
      options.timeoutMs = std::strtol(argv[++i], nullptr, 10);
    } else if (i == argc - 1 && parseUrl(arg, options)) {
      continue;
    } else {
      return usage();
    }
  }
  if (options.hostPort.empty()) return usage();

  auto io = kj::setupAsyncIo();
  auto& timer = io.provider->getTimer();
  GetrandomEntropy entropy;
  kj::HttpHeaderTable table;
  kj::HttpClientSettings settings;
  settings.entropySource = entropy;

  auto run =
      io.provider->getNetwork()
          .parseAddress(options.hostPort)
          .then([&](kj::Own<kj::NetworkAddress> address) {
            auto client = kj::newHttpClient(timer, table, *address, settings);
            kj::HttpHeaders headers(table);
            headers.set(kj::HttpHeaderId::HOST, options.hostPort.c_str());
            auto opened = client->openWebSocket(options.path.c_str(), headers);
            return opened
                .then([&](kj::HttpClient::WebSocketResponse&& response) -> kj::Promise<int> {
                  KJ_SWITCH_ONEOF(response.webSocketOrBody) {
                    KJ_CASE_ONEOF(socket, kj::Own<kj::WebSocket>) {
                      printLine("# open");
                      auto session = kj::heap<Session>(*socket, options);
                      auto done = session->run();
                      return done.attach(kj::mv(socket), kj::mv(session));  // last destroyed first
                    }
                    KJ_CASE_ONEOF(body, kj::Own<kj::AsyncInputStream>) {
                      printLine("# refused " + std::to_string(response.statusCode));
                      return 1;
                    }
                  }
                  KJ_UNREACHABLE;
                })
                .attach(kj::mv(address), kj::mv(client));
          })
          .then([](int code) { return code; },
                [](kj::Exception&& e) {
                  printLine("# failed " + std::string(e.getDescription().cStr()));
                  return 1;
                });
  auto deadline = timer.afterDelay(options.timeoutMs * kj::MILLISECONDS).then([]() {
    printLine("# timeout");
    return 4;
  });
  return run.exclusiveJoin(kj::mv(deadline)).wait(io.waitScope);
}
