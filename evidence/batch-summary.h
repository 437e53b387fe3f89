#pragma once
// The summary of a batch comparison (`rea compare-batch`, issue 21): every scenario id of two
// batch results paired, each pair's comparison status and first divergence, counts per status
// and per dimension, the scenarios present on one side only, and the same as an HTML index that
// links each pair's report. Pure aggregation: the comparisons are made by the caller.
//
// summary.json (key order as written):
//   {"left": LEFT, "right": RIGHT, "status": ..., "complete": bool,
//    "counts": {"pairs": n, "unchanged": n, "changed": n, "unknown": n, "truncated": n,
//               "failed": n, "left_only": n, "right_only": n},
//    "dimensions": {"terminal": {"unchanged": n, "changed": n, "added": n, "removed": n,
//                                "unknown": n, "truncated": n}, ... seven dimensions},
//    "pairs": [{"id", "status", "dimensions": [names not unchanged], "first_divergence",
//               "report": "pairs/ID.html", "comparison": "pairs/ID.json"}
//              | {"id", "status": "failed", "left_error"?, "right_error"?, "reason"?}],
//    "left_only": [ids], "right_only": [ids]}
// `status` derives from the compared pairs as B §9.3 derives a comparison's from its
// dimensions: truncated if any pair is, else changed if any is, else unknown if any is (or no
// pair was compared), else unchanged. `complete` is false when a pair failed (a side has no
// valid Evidence, or the two may not be compared) or a scenario is on one side only: an
// unchanged but incomplete batch has not shown that the two sides agree.
//
// Errors: none thrown for entries made by the factories below.

#include <string>
#include <vector>

#include "evidence/json.h"

namespace rea::evidence {

Json comparedPair(const std::string& id, const Json& comparison);
// The entry of a pair that was compared; `comparison` is the comparison object (B §9.6). It also
// carries each dimension's status for summariseBatch(), which counts and then drops them.

Json failedPair(const std::string& id, const Json* leftError, const Json* rightError,
                const std::string& reason = {});
// The entry of a pair that could not be compared: the error object (B §2.4) of each side that
// has one (a failed capture, malformed Evidence), or, for two valid captures that may not be
// compared (B §9.1: different comparison contracts), the sentence saying why as `reason`.

Json summariseBatch(const std::string& left, const std::string& right, std::vector<Json> pairs,
                    const std::vector<std::string>& leftOnly,
                    const std::vector<std::string>& rightOnly);
// The summary above; `pairs` in id order.

std::string renderBatchIndexHtml(const Json& summary);
// A self-contained HTML page (no scripts, no external resources): the overall status and
// counts, then one table row per pair (id linking its report, status, dimensions that are not
// unchanged, the first divergence: dimension, index, and the left and right values shortened
// to 160 characters), then the scenarios present on one side only.

std::string summariseBatchText(const Json& summary);
// A short summary in words for a terminal: the verdict, the counts, then each pair that is not
// unchanged with its first divergence's dimension and index. Ends with a newline.

}  // namespace rea::evidence
