#pragma once
// Semantic validation of a Process Capture v4 (SPEC B §5.4 step (c)): the twelve rules across
// fields that a well-shaped capture must also satisfy, run at the end of every capture, when
// building capture Evidence, when importing Evidence and before comparing.
//
// Errors: none thrown; every broken rule is returned as an Issue, all of them, in rule order.

#include <string>
#include <vector>

#include "evidence/capture.h"
#include "evidence/issue.h"
#include "evidence/json.h"

namespace rea::evidence {

std::vector<Issue> validateCapture(const Capture& capture);
// The rules of §5.4, in that order, with the paths named there:
//   1 `manifest.executable_sha256` differs from `manifest.scenario.executable_sha256`;
//   2 `manifest.{full_scenario,comparison_contract,normalization,shim_plan,replay_plan}_sha256`
//     differ from H of the embedded value (normalization: the capture's top-level one);
//   3 `manifest.completed_at` earlier than `started_at` (compared as Date.parse would, in ms);
//   4 `frames`, `rendered_frames`, `interaction_events`, `shim_events`, `protocol_events`:
//     `sequence` not 0, 1, 2, …;
//   5 `frames`, `rendered_frames`, `process_samples`, `filesystem_checkpoints`, `shim_events`,
//     `protocol_events`: `at_ms` decreasing somewhere;
//   6 `filesystem_checkpoints`: duplicate names; first not `before`; last not
//     `after_settlement` (three separate issues);
//   7 `truncated`: a checkpoint is truncated but the capture is not;
//   8 `exit`: reason other than `exited` with a non-null code;
//   9 `settlement.cleanup_outcome`: quiesced with an outcome other than `not_required`, or not
//     quiesced with `not_required`;
//  10 `shim_events`, one issue per event: `unmatched` needs `route_index: null`; `matched` and
//     `exhausted` need a (command, route index) declared in `manifest.shim_plan`;
//  11 `shim_events`, one issue per declared route matched more often than its `max_calls`
//     (missing or non-numeric `max_calls` counts as 0);
//  12 `protocol_events`, one issue per matched HTTP request without a `replay_plan.http` route
//     of the same `method` and `path`.
// The plans are read as JSON the way the baseline reads them: shim entries without a string
// `name` and an array `routes`, and routes that are not objects, declare nothing.

CaptureParseResult importCapture(const Json& value);
CaptureParseResult importCapture(Json&& value);  // moving the large strings (parseCapture)
// The whole of §5.4: parseCapture() then, if the shape is right, validateCapture(). `capture`
// is set only when both pass; `issues` holds the shape issues or else the semantic ones, and
// failureMessage() is the text to show (the legacy message, or `Invalid Process Capture v4:
// path: message; …`).

std::string invalidCaptureMessage(const std::vector<Issue>& issues);
// INVALID_CAPTURE_PREFIX + formatIssues(issues).

}  // namespace rea::evidence
