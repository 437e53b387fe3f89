#include "helpers/replay/route-matcher.h"

#include <iterator>

namespace rea::helper {
namespace {

bool equalsIgnoringAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool routeFits(const HttpRoute& route, std::string_view method, std::string_view path,
               const std::vector<RequestHeader>& headers, std::string_view body) {
  if (route.method != method || route.path != path) return false;
  if (route.requestBody && *route.requestBody != body) return false;
  for (auto& [name, value] : route.requestHeaders) {
    std::optional<std::string> actual = joinedHeader(headers, name);
    if (!actual || *actual != value) return false;
  }
  return true;
}

}  // namespace

RouteMatcher::RouteMatcher(const std::vector<HttpRoute>& routes)
    : routes_(routes), calls_(routes.size(), 0) {}

RouteMatcher::Result RouteMatcher::match(std::string_view method, std::string_view path,
                                         const std::vector<RequestHeader>& headers,
                                         std::string_view body) {
  for (size_t i = 0; i < routes_.size(); ++i) {
    const HttpRoute& route = routes_[i];
    if (!routeFits(route, method, path, headers, body)) continue;
    if (calls_[i] >= route.maxCalls) return {Verdict::EXHAUSTED, &route};
    ++calls_[i];
    return {Verdict::MATCHED, &route};
  }
  return {Verdict::UNMATCHED, nullptr};
}

std::optional<std::string> joinedHeader(const std::vector<RequestHeader>& headers,
                                        std::string_view name) {
  std::optional<std::string> result;
  for (const RequestHeader& header : headers) {
    if (!equalsIgnoringAsciiCase(header.name, name)) continue;
    if (result) {
      result->append(", ");
      result->append(header.value);
    } else {
      result.emplace(header.value);
    }
  }
  return result;
}

std::string_view pathWithoutQuery(std::string_view url) {
  // Absolute-form targets ("GET http://host/p HTTP/1.1") name the same path as origin-form.
  for (std::string_view scheme : {"http://", "https://", "ws://", "wss://"}) {
    if (url.size() >= scheme.size() &&
        equalsIgnoringAsciiCase(url.substr(0, scheme.size()), scheme)) {
      std::string_view rest = url.substr(scheme.size());
      size_t slash = rest.find_first_of("/?#");
      url = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
      if (!url.empty() && url.front() != '/') url = "/";
      break;
    }
  }
  size_t end = url.find_first_of("?#");
  return end == std::string_view::npos ? url : url.substr(0, end);
}

const char* statusReason(uint32_t status) {
  // The phrases of Node's http.STATUS_CODES, so a replayed response looks like REA's.
  static constexpr struct {
    uint32_t status;
    const char* reason;
  } REASONS[] = {{100, "Continue"},
                 {101, "Switching Protocols"},
                 {102, "Processing"},
                 {103, "Early Hints"},
                 {200, "OK"},
                 {201, "Created"},
                 {202, "Accepted"},
                 {203, "Non-Authoritative Information"},
                 {204, "No Content"},
                 {205, "Reset Content"},
                 {206, "Partial Content"},
                 {207, "Multi-Status"},
                 {208, "Already Reported"},
                 {226, "IM Used"},
                 {300, "Multiple Choices"},
                 {301, "Moved Permanently"},
                 {302, "Found"},
                 {303, "See Other"},
                 {304, "Not Modified"},
                 {305, "Use Proxy"},
                 {307, "Temporary Redirect"},
                 {308, "Permanent Redirect"},
                 {400, "Bad Request"},
                 {401, "Unauthorized"},
                 {402, "Payment Required"},
                 {403, "Forbidden"},
                 {404, "Not Found"},
                 {405, "Method Not Allowed"},
                 {406, "Not Acceptable"},
                 {407, "Proxy Authentication Required"},
                 {408, "Request Timeout"},
                 {409, "Conflict"},
                 {410, "Gone"},
                 {411, "Length Required"},
                 {412, "Precondition Failed"},
                 {413, "Payload Too Large"},
                 {414, "URI Too Long"},
                 {415, "Unsupported Media Type"},
                 {416, "Range Not Satisfiable"},
                 {417, "Expectation Failed"},
                 {418, "I'm a Teapot"},
                 {421, "Misdirected Request"},
                 {422, "Unprocessable Entity"},
                 {423, "Locked"},
                 {424, "Failed Dependency"},
                 {425, "Too Early"},
                 {426, "Upgrade Required"},
                 {428, "Precondition Required"},
                 {429, "Too Many Requests"},
                 {431, "Request Header Fields Too Large"},
                 {451, "Unavailable For Legal Reasons"},
                 {500, "Internal Server Error"},
                 {501, "Not Implemented"},
                 {502, "Bad Gateway"},
                 {503, "Service Unavailable"},
                 {504, "Gateway Timeout"},
                 {505, "HTTP Version Not Supported"},
                 {506, "Variant Also Negotiates"},
                 {507, "Insufficient Storage"},
                 {508, "Loop Detected"},
                 {509, "Bandwidth Limit Exceeded"},
                 {510, "Not Extended"},
                 {511, "Network Authentication Required"}};
  for (auto& entry : REASONS) {
    if (entry.status == status) return entry.reason;
  }
  return "Unknown";
}

}  // namespace rea::helper
