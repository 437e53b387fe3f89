#include "helpers/shim/client/ledger-request.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "evidence/json-string.h"
#include "evidence/utf.h"

namespace rea::helper {
namespace {

bool startsWith(const std::string& text, const char* prefix) {
  return text.compare(0, strlen(prefix), prefix) == 0;
}

// Any argv bytes: ill-formed UTF-8 becomes U+FFFD first, so the body is always valid JSON.
void appendJsonText(std::string& out, const std::string& raw) {
  evidence::appendJsonString(out, evidence::sanitizeUtf8(raw));
}

bool equalsIgnoringCase(const std::string& a, const char* b) {
  return a.size() == strlen(b) && strncasecmp(a.data(), b, a.size()) == 0;
}

}  // namespace

bool parseLedgerUrl(const char* url, LedgerAddress& address, std::string& error) {
  std::string text = url;
  error = "REA_SHIM_LEDGER_URL is not an http://127.0.0.1:<port>/invoke URL";
  if (!startsWith(text, "http://")) return false;
  size_t hostStart = 7;
  size_t colon = text.find(':', hostStart);
  if (colon == std::string::npos) return false;
  size_t slash = text.find('/', colon);
  if (slash == std::string::npos) return false;
  std::string host = text.substr(hostStart, colon - hostStart);
  std::string port = text.substr(colon + 1, slash - colon - 1);
  if (host == "localhost") host = "127.0.0.1";
  struct in_addr parsed;
  if (inet_pton(AF_INET, host.c_str(), &parsed) != 1) return false;
  if (port.empty() || port.size() > 5) return false;
  uint32_t number = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    number = number * 10 + uint32_t(c - '0');
  }
  if (number == 0 || number > 65535) return false;
  address.ipv4 = parsed.s_addr;
  address.port = uint16_t(number);
  address.hostPort = host + ":" + port;
  address.path = text.substr(slash);
  error.clear();
  return true;
}

std::string invocationJson(const std::string& command, const std::vector<std::string>& arguments,
                           const std::string& workingDirectory) {
  std::string out = "{\"command\":";
  appendJsonText(out, command);
  out += ",\"arguments\":[";
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ',';
    appendJsonText(out, arguments[i]);
  }
  out += "],\"working_directory\":";
  appendJsonText(out, workingDirectory);
  out += '}';
  return out;
}

bool parseHttpReply(const std::string& raw, bool complete, HttpReply& reply, bool& done,
                    std::string& error) {
  done = false;
  size_t headerEnd = raw.find("\r\n\r\n");
  if (headerEnd == std::string::npos) {
    if (complete) {
      error = "the shim ledger closed the connection before answering";
      return false;
    }
    return true;
  }
  // Status line: HTTP/1.x SSS reason
  if (!startsWith(raw, "HTTP/1.") || raw.size() < 12 || raw[8] != ' ') {
    error = "the shim ledger's answer is not HTTP/1.x";
    return false;
  }
  int status = 0;
  for (size_t i = 9; i < 12; ++i) {
    if (raw[i] < '0' || raw[i] > '9') {
      error = "the shim ledger's answer has no status code";
      return false;
    }
    status = status * 10 + (raw[i] - '0');
  }

  bool haveLength = false;
  size_t length = 0;
  size_t lineStart = raw.find("\r\n") + 2;
  while (lineStart < headerEnd + 2) {
    size_t lineEnd = raw.find("\r\n", lineStart);
    std::string line = raw.substr(lineStart, lineEnd - lineStart);
    lineStart = lineEnd + 2;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.erase(0, 1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
      value.pop_back();
    if (equalsIgnoringCase(name, "content-length")) {
      if (value.empty() || value.size() > 15) {
        error = "the shim ledger sent a bad Content-Length";
        return false;
      }
      length = 0;
      for (char c : value) {
        if (c < '0' || c > '9') {
          error = "the shim ledger sent a bad Content-Length";
          return false;
        }
        length = length * 10 + size_t(c - '0');
      }
      haveLength = true;
    } else if (equalsIgnoringCase(name, "transfer-encoding")) {
      error = "the shim ledger sent a chunked answer, which this client does not read";
      return false;
    }
  }

  size_t bodyStart = headerEnd + 4;
  size_t available = raw.size() - bodyStart;
  if (haveLength) {
    if (available < length) {
      if (complete) {
        error = "the shim ledger's answer was cut short";
        return false;
      }
      return true;
    }
    reply.body = raw.substr(bodyStart, length);
  } else {
    if (!complete) return true;
    reply.body = raw.substr(bodyStart);
  }
  reply.status = status;
  done = true;
  return true;
}

bool postInvocation(const LedgerAddress& address, const std::string& body, HttpReply& reply,
                    std::string& error) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::string("cannot create a socket for the shim ledger: ") + strerror(errno);
    return false;
  }
  struct sockaddr_in target = {};
  target.sin_family = AF_INET;
  target.sin_addr.s_addr = address.ipv4;
  target.sin_port = htons(address.port);
  int rc;
  do {
    rc = connect(fd, reinterpret_cast<struct sockaddr*>(&target), sizeof(target));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    error = "cannot reach the shim ledger at " + address.hostPort + ": " + strerror(errno);
    close(fd);
    return false;
  }

  std::string request =
      "POST " + address.path + " HTTP/1.1\r\nHost: " + address.hostPort +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n\r\n" + body;
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string("cannot send to the shim ledger: ") + strerror(errno);
      close(fd);
      return false;
    }
    sent += size_t(n);
  }

  std::string raw;
  char buffer[65536];
  for (;;) {
    ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string("cannot read the shim ledger's answer: ") + strerror(errno);
      close(fd);
      return false;
    }
    raw.append(buffer, size_t(n));
    bool done;
    if (!parseHttpReply(raw, n == 0, reply, done, error)) {
      close(fd);
      return false;
    }
    if (done) break;
  }
  close(fd);
  return true;
}

}  // namespace rea::helper
