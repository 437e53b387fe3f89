#pragma once
// The scenario's bounded numbers: `limits` (SPEC B §3.6) and `terminal` (B §3.1). One definition
// of each value's default and range, which every hop that carries it uses: the scenario parser,
// the supervisor's launches, the helpers' configurations and their checks of what they were sent
// (a helper defends the same range the scenario promises). Defaults a Cap'n Proto schema must
// spell as literals are tied to these by static_asserts where the generated code is used.
//
// Pure: no I/O, nothing throws.

#include <cstdint>

namespace rea::evidence {

struct Bound {
  int64_t defaultValue;
  int64_t min;
  int64_t max;

  template <typename T>
  constexpr bool contains(T value) const {
    // Unsigned values above INT64_MAX wrap negative: below every min, so refused too.
    return static_cast<int64_t>(value) >= min && static_cast<int64_t>(value) <= max;
  }
};

constexpr int clampedTo(const Bound& bound, int value) {
  // The nearest value in range (for bounds that fit an int: the terminal's).
  return value < bound.min ? int(bound.min) : value > bound.max ? int(bound.max) : value;
}

namespace limit {
// B §3.6 `limits`.
constexpr Bound OUTPUT_BYTES{1000000, 1, 10000000};
constexpr Bound FRAMES{10000, 1, 100000};
constexpr Bound FILES{10000, 1, 100000};
constexpr Bound FILE_BYTES{10000000, 1, 100000000};
constexpr Bound PROCESSES{1000, 1, 10000};
constexpr Bound PROTOCOL_EVENTS{10000, 1, 100000};
constexpr Bound PROTOCOL_BODY_BYTES{1000000, 1, 10000000};
constexpr Bound CONNECTIONS{100, 1, 1000};
constexpr Bound FILESYSTEM_DEPTH{16, 1, 64};
}  // namespace limit

namespace terminal {
// B §3.1 `terminal`; a resize event's columns and rows have the same range.
constexpr Bound COLUMNS{80, 1, 1000};
constexpr Bound ROWS{24, 1, 1000};
constexpr Bound SCROLLBACK{1000, 0, 10000};
}  // namespace terminal

namespace timing {
// B §3.1 `timeout_ms` and `idle_timeout_ms`; the pty helper's watchdog holds the same range.
constexpr Bound TIMEOUT_MS{30000, 1, 300000};
constexpr Bound IDLE_TIMEOUT_MS{30000, 1, 300000};
}  // namespace timing

}  // namespace rea::evidence
