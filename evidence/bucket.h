#pragma once
// Time bucketing (SPEC B §4.5, A6): every recorded timestamp is reduced to the start of its
// `time_bucket_ms` bucket so that small timing jitter does not change the Evidence.
//
// Errors: throws std::invalid_argument when the bucket width is not positive (a caller bug:
// scenario validation guarantees 1..60000).

#include <cstdint>
#include <stdexcept>

namespace rea::evidence {

inline int64_t bucketMs(int64_t ms, int64_t bucket) {
  if (bucket <= 0) throw std::invalid_argument("bucketMs: bucket width must be positive");
  // Clamped first: the result is >= 0 anyway, and this keeps the division a plain truncation
  // (floor and truncation agree for non-negative numbers).
  if (ms <= 0) return 0;
  return ms / bucket * bucket;
}
// floor(ms / bucket) * bucket, clamped at >= 0 (B §4.5: "all at_ms values are clamped at >= 0").

}  // namespace rea::evidence
