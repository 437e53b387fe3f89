#pragma once
// Stability of a scenario (`rea stability`, SPEC A15): whether N captures of the same scenario
// agree, dimension by dimension, so that a user can see whether its verdicts can be trusted
// before comparing an authority with a reconstruction. Pure aggregation over the comparisons of
// every pair of captures (evidence/compare.h); the captures themselves are made by the caller.
//
// Every pair (i, j), i < j, is compared with compareCaptures(captures[i], captures[j], options).
// Per dimension (terminal, interaction, exit, filesystem, protocol, process, shim):
//   "stable"    every pair reports it `unchanged`;
//   "unstable"  some pair reports it `changed`, `added` or `removed` (content, or timing beyond
//               the tolerance in the default comparison);
//   "unknown"   otherwise (some pair reports it `truncated` or `unknown`: a truncated capture or
//               a residual unknown prevents proving agreement).
// The overall `status` is "unstable" if any dimension is, else "unknown" if any is, else
// "stable".
//
// Result (key order as written):
//   {"runs": N, "pairs": N(N-1)/2, "status": ..., "dimensions": {terminal: ..., ...},
//    "differences": [{"left": i, "right": j, "status": <the pair's comparison status>,
//                     "dimensions": [names not unchanged], "first_divergence": {...}}],
//    "limitations": [distinct sentences of every pair's limitations, first-seen order]}
// with runs numbered from 1 and `differences` holding only pairs whose status is not
// `unchanged`, in pair order.
//
// Errors: throws std::invalid_argument for fewer than 2 captures.

#include <string>
#include <vector>

#include "evidence/compare.h"
#include "evidence/json.h"

namespace rea::evidence {

Json assessStability(const std::vector<Json>& captures, const CompareOptions& options = {});
// `captures` are capture objects (an Evidence's `normalized_result`), already valid and made
// under one comparison contract.

std::string summariseStability(const Json& stability);
// A short human summary for a terminal: the overall verdict, one line per dimension, then each
// differing pair with its first divergence. Ends with a newline.

}  // namespace rea::evidence
