#pragma once
// Internals shared by the comparison's source files (compare.c++, compare-baseline.c++,
// compare-content.c++, compare-terminal.c++, compare-process-tree.c++). Not part of the
// evidence API: include evidence/compare.h instead. The rules these pieces implement are
// documented there.
//
// Errors: none thrown for valid input; absent or ill-typed members read as null / [] / false.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/compare-status.h"
#include "evidence/json-member.h"
#include "evidence/json.h"

namespace rea::evidence::_ {

enum class Dimension : uint8_t { TERMINAL, INTERACTION, EXIT, FILESYSTEM, PROTOCOL, PROCESS, SHIM };
constexpr size_t DIMENSION_COUNT = 7;
constexpr std::array<Dimension, DIMENSION_COUNT> DIMENSIONS = {
    Dimension::TERMINAL, Dimension::INTERACTION, Dimension::EXIT, Dimension::FILESYSTEM,
    Dimension::PROTOCOL, Dimension::PROCESS,     Dimension::SHIM};

const char* dimensionName(Dimension dimension);
// Also the residual-unknown scope that makes the dimension unknown.

// ---------------------------------------------------------------------------------------------
// Reading captures defensively

const Json& arrayMember(const Json& object, const char* key);
// object[key] when it is an array, else an empty array.

std::optional<int64_t> nonNegativeInteger(const Json& value);
// The value when it is a number holding a non-negative integer ≤ 2^53 − 1 (JavaScript's
// Number.isSafeInteger and ≥ 0), else nullopt.

std::optional<int64_t> elementTime(const Json& element, const char* key = "at_ms");
// nonNegativeInteger(element[key]): B §9.4's `*_at_ms` of an observation.

bool deepEqual(const Json& a, const Json& b, bool pidMatchesNumber = false);
// Structural equality ignoring object key order; numbers compare as JavaScript numbers. With
// `pidMatchesNumber` (the default mode, A15) strings compare with equalUpToPids().

// ---------------------------------------------------------------------------------------------
// Per-dimension results

struct Candidate {
  Json divergence;  // a complete `{status:"found", ...}` object
  std::optional<int64_t> leftAtMs;
  std::optional<int64_t> rightAtMs;
};

Candidate foundDivergence(Dimension dimension, uint64_t index, std::optional<int64_t> leftAtMs,
                          std::optional<int64_t> rightAtMs, Json left, Json right);
// `{status:"found", dimension, index, left_at_ms, right_at_ms, left, right}`.

Candidate timingDivergence(Dimension dimension, uint64_t index, std::optional<int64_t> leftAtMs,
                           std::optional<int64_t> rightAtMs, Json left, Json right,
                           int64_t deviationMs);
// foundDivergence plus `timing:true, deviation_ms`.

struct DimensionOutcome {
  CompareStatus contentStatus = CompareStatus::UNCHANGED;  // unchanged|added|removed|changed
  std::vector<Candidate> candidates;      // in preference order (content before timing)
  std::optional<int64_t> maxDeviationMs;  // default mode only
  bool exceedsTolerance = false;          // default mode only
};

using Outcomes = std::array<DimensionOutcome, DIMENSION_COUNT>;

Json exitElement(const Json& capture);
// The exit pseudo-entry `{...exit, settlement}` (B §9.3).

Json finalFilesystemElement(const Json& capture);
// The filesystem pseudo-entry `{name:"final", files: files_after, effects: filesystem_effects}`.

Outcomes compareBaselineDimensions(const Json& left, const Json& right);
// compare-baseline.c++: B §9.3 lists, one candidate per dimension at most.

Outcomes compareContentDimensions(const Json& left, const Json& right, int64_t toleranceMs);
// compare-content.c++: the A7 lists and timing.

// ---------------------------------------------------------------------------------------------
// Default-mode building blocks

struct Observation {
  Json content;                                        // compared and shown for content divergences
  Json original;                                       // shown for timing divergences
  std::optional<int64_t> atMs;                         // the element's time (`*_at_ms`)
  std::vector<std::pair<std::string, int64_t>> times;  // masked timestamps by path, sorted
};

Observation observe(const Json& element, std::optional<int64_t> atMs);
// Masks `at_ms`, `scheduled_at_ms`, `dispatched_at_ms`, `held_at_ms` and `elapsed_ms` at any depth,
// keeping the integer ones (by JSON path) for timing.

DimensionOutcome compareObservations(Dimension dimension, const std::vector<Observation>& left,
                                     const std::vector<Observation>& right, int64_t toleranceMs);
// Content status, content candidate, and timing over the content-matched prefix.

DimensionOutcome compareTerminalContent(const Json& left, const Json& right, int64_t toleranceMs);
// compare-terminal.c++: output stream + screens at moments.

std::vector<Observation> processTreeObservations(const Json& capture);
// compare-process-tree.c++: the canonical process tree in pre-order.

}  // namespace rea::evidence::_
