#pragma once
// RouteMatcher: the pure part of SPEC B §8.2 — which declared route answers a request and with
// which outcome, and the per-route call counters. No sockets, no clock: the server hands it the
// request's method, path, headers and body and acts on the verdict.
//
// Rule 3: the FIRST route with equal method (case-sensitive) and path, equal `request_body` when
// declared, and every declared request header equal to the request's header of that name
// (case-insensitive name, exact value, repeated headers compared comma-joined). Later identical
// routes are never reached, even when the first is exhausted. Rule 4: none -> unmatched;
// counter >= max_calls -> script_exhausted; else matched (and the counter advances).
//
// Errors: none.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "helpers/replay/replay-plan.h"

namespace rea::helper {

struct RequestHeader {
  std::string_view name;
  std::string_view value;
};

class RouteMatcher {
 public:
  explicit RouteMatcher(const std::vector<HttpRoute>& routes);
  // `routes` must outlive the matcher.

  enum class Verdict { MATCHED, UNMATCHED, EXHAUSTED };
  struct Result {
    Verdict verdict;
    const HttpRoute* route;  // null when UNMATCHED
  };

  Result match(std::string_view method, std::string_view path,
               const std::vector<RequestHeader>& headers, std::string_view body);
  // Applies rules 3 and 4; a MATCHED result has already advanced the route's counter.

  uint32_t calls(size_t routeIndex) const { return calls_[routeIndex]; }

 private:
  const std::vector<HttpRoute>& routes_;
  std::vector<uint32_t> calls_;
};

std::optional<std::string> joinedHeader(const std::vector<RequestHeader>& headers,
                                        std::string_view name);
// All values of the headers named `name` (ASCII case-insensitive), in order, joined by ", ";
// nullopt when there is none.

std::string_view pathWithoutQuery(std::string_view url);
// The request target up to the first '?' (and without a '#fragment', which clients do not send
// but a hostile one might).

const char* statusReason(uint32_t status);
// The standard reason phrase for an HTTP status code ("OK", "Not Found"), or "Unknown".

}  // namespace rea::helper
