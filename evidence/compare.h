#pragma once
// Comparison of two Process Capture v4 objects (`normalized_result`): the comparison object of
// SPEC B §9, computed either exactly as the baseline does (`--baseline-semantics`) or, by
// default, on content with timing reported separately (SPEC A7). Owns nothing; pure functions
// over JSON the caller has already parsed and validated (B §9.1 rules 1–2: validation, equal
// schema version and comparison contract hash; unknown keys already dropped).
//
// Errors: none thrown for valid captures. Missing or ill-typed members are read as absent
// (null, [] or false) rather than trusted, so a bug upstream yields a comparison, not a crash.
//
// ## Output (both modes)
// `{status, terminal, interaction, exit, filesystem, protocol, process, shim, first_divergence,
// limitations}` in that order; the default mode appends `timing`. Every dimension status is one
// of `unchanged|added|removed|changed|truncated|unknown`, and `status` is derived from them as in
// B §9.3 (truncated > changed/added/removed > unknown > unchanged), so REA's consumers accept it.
//
// Shared rules (B §9.2–§9.5, identical in both modes):
// - Either capture `truncated` → every dimension and `status` are `truncated`,
//   `first_divergence = {status:"unknown", reason:"At least one capture is truncated."}` and
//   `limitations` = that sentence alone (the default mode still appends `timing`, with every
//   `max_deviation_ms` null).
// - A dimension is `unknown` when the top-level `normalization` objects differ (except `exit`)
//   or either capture has a residual unknown with the dimension's scope (default mode: unless
//   its timing exceeds the tolerance, see below). Scopes `cleanup` and
//   `network` affect no dimension. A lost helper's residual (A13) therefore keeps its dimension
//   `unknown`, never `unchanged`; captures without residuals (A8 + A9) can be `unchanged`.
// - Otherwise `unchanged` (observation lists deeply equal, key order ignored), `added` (left
//   list empty), `removed` (right list empty) or `changed`; `exit` only unchanged/changed.
// - `first_divergence`: every dimension (unknown or not) offers its first differing
//   observation as `{status:"found", dimension, index, left_at_ms, right_at_ms, left, right}`
//   (`left`/`right` null when that side has no element there); the candidate with the smallest
//   min(left_at_ms, right_at_ms) wins, null counting as +∞, ties going to the earlier dimension
//   (terminal, interaction, exit, filesystem, protocol, process, shim). Without a candidate:
//   `{status:"unknown", reason:"Residual unknowns prevent proving that no divergence
//   occurred."}` when the normalizations differ or either capture has any residual unknown,
//   else `{status:"none"}`.
// - `limitations`: left limitations, right limitations, left residual reasons, right residual
//   reasons, then "Capture normalization rules differ." when the normalizations differ.
//
// ## Baseline mode (B §9.3 exactly)
// Observation lists: terminal = raw frames as `{kind:"raw", ...frame}` merged with rendered
// frames as `{kind:"rendered", ...frame}`, stable-sorted by at_ms, raw before rendered, then
// sequence; interaction = interaction_events; exit = `[{code, signal, reason, settlement}]`;
// filesystem = filesystem_checkpoints + `{name:"final", files: files_after, effects:
// filesystem_effects}`; protocol = protocol_events; process = process_samples; shim =
// shim_events. `*_at_ms` is the element's `at_ms` when a non-negative integer, else null.
//
// ## Default mode (A7): content, with timestamps masked
// `at_ms`, `scheduled_at_ms`, `dispatched_at_ms`, `held_at_ms` and `elapsed_ms` are removed from
// every compared element (at any depth) and kept aside for timing. Observation lists per dimension:
// - terminal, two parts:
//   * the output stream: the concatenation of every raw frame's normalised `data` (read
//     boundaries and `sequence` do not matter). A difference yields `index` = byte offset of
//     the first differing byte, `left`/`right` = `{kind:"stream", excerpt_offset, excerpt}`
//     where `excerpt` is up to 24 bytes before and 24 bytes from that offset (cut at UTF-8
//     character boundaries, `excerpt_offset` = its byte offset in the stream), and `*_at_ms` =
//     the at_ms of the frame holding that byte (null past the end of that side's stream);
//   * the screens: one element per moment, in this order: each interaction with outcome
//     `dispatched` (in recorded order; the last rendered frame with at_ms < dispatched_at_ms,
//     i.e. what was on screen when it was sent), each checkpoint except `before` that both
//     captures took (a checkpoint only one took is the filesystem's difference, not a screen to
//     compare; in recorded order; the last rendered frame with at_ms ≤ the checkpoint's at_ms;
//     `before` is taken before the target starts, so its screen is blank by construction), then the
//     end (the last rendered frame). Elements: `{kind:"screen", moment:"interaction",
//     interaction_sequence, screen}`, `{kind:"screen", moment:"checkpoint", checkpoint, screen}`,
//     `{kind:"screen", moment:"end", screen}` with `screen = {columns, rows, cursor_x, cursor_y,
//     active_buffer, lines}` or null when no frame qualifies (`serialized_state` is not
//     compared: it encodes the same stream). `index` = position in that list; `*_at_ms` = the
//     moment (dispatched_at_ms, checkpoint at_ms, or the last frame's at_ms for the end).
//   Empty (for added/removed) = no raw and no rendered frames. Candidates in the order stream,
//   screen, timing.
// - interaction: each event without its two timestamps (`{sequence, type, data, outcome}`);
//   `*_at_ms` = its dispatched_at_ms.
// - exit: `[{code, signal, reason, settlement:{state, cleanup_outcome}}]`; `*_at_ms` null.
// - filesystem: each checkpoint without at_ms (`{name, files, effects, truncated}`) then
//   `{name:"final", files, effects}`; `*_at_ms` = the checkpoint's at_ms (final: null).
// - protocol, shim: each event without at_ms (sequence order kept); `*_at_ms` = its at_ms.
// - process: the process tree in canonical form, flattened in pre-order. A node is one
//   renumbered pid; its parent is the parent_pid of its first sample; its history is the list
//   of its states in sample order, consecutive repeats collapsed, each state `{command,
//   leads_group, leads_session}` (pgid == pid, sid == pid; null when the id is null) — so
//   exec'd commands and the empty command of an exited process are part of it, while the
//   renumbered ids are not. Children (and roots) are ordered by their canonical history text,
//   then by a SHA-256 over their whole subtree, so the order in which concurrent siblings were
//   observed does not matter; identical siblings are ordered by first observation time.
//   Element: `{depth, history:[{command, leads_group, leads_session}]}`; `*_at_ms` = the
//   node's first sample time.
//
// - `<pid>` (A15): wherever the default mode compares text (the output stream, screen lines,
//   every string of the other dimensions' elements), a `<pid>` placeholder on one side matches
//   any maximal decimal number on the other (evidence/pid-placeholder.h): a number that happened
//   to equal a pid of one run is not a difference. For the stream, `index` is then the left
//   stream's offset and each excerpt is taken at its own side's offset of the first difference;
//   timing pairs each left byte with its counterpart. The baseline mode compares exactly.
//
// ## Default mode: timing
// Timestamps are paired only where content matched: element i of the left list with element i
// of the right list for every i before the dimension's first content difference, each masked
// timestamp with the one at the same path; for the terminal stream, byte k of the left stream
// with byte k of the right stream for every k before the first differing byte (the screens add
// no timing of their own: their moments belong to interaction and filesystem). Member:
//   "timing": {"tolerance_ms": T,
//              "terminal": {"max_deviation_ms": D|null, "exceeds_tolerance": bool}, ... one
//              object per dimension in dimension order ...}
// D = the largest |left − right| in ms over the pairs (null when nothing was paired); exceeds
// = D > T. T = `CompareOptions::timingToleranceMs` or max(50, 5 × left time_bucket_ms).
// A dimension that exceeds the tolerance is reported `changed`, so that the overall status is
// `changed` as A7 requires, and stays derivable from the dimensions (B §9.3). This holds even
// for a dimension that would otherwise be `unknown` (a residual of its scope, or different
// normalizations): the deviation was observed on content that matched, and A7 makes it
// outrank residual uncertainty, as an observed difference does for first_divergence in B §9.4.
// (A content difference in an `unknown` dimension still leaves it `unknown`, as in B.) The
// first pair beyond tolerance is also a first_divergence candidate (after the dimension's
// content candidates):
//   {status:"found", dimension, index, left_at_ms, right_at_ms, left, right, timing:true,
//    deviation_ms}
// with `left`/`right` the *unmasked* elements (stream: the excerpt objects at byte `index`),
// `*_at_ms` the elements' times as for content and `deviation_ms` that pair's deviation.

#include <cstdint>
#include <optional>
#include <string>

#include "evidence/json.h"

namespace rea::evidence {

struct CompareOptions {
  bool baselineSemantics = false;
  // `--baseline-semantics`: compare exactly as SPEC B §9 (every timestamp and every per-read
  // frame is content; no `timing` member).

  std::optional<int64_t> timingToleranceMs;
  // `--timing-tolerance-ms`; absent = max(50, 5 × the left capture's time_bucket_ms). Ignored in
  // baseline mode.
};

Json compareCaptures(const Json& left, const Json& right, const CompareOptions& options = {});
// The comparison object (the `normalized_result` of the comparison Evidence) of two valid
// capture objects. The caller has checked B §9.1 rules 1–2 and, when applicable, rule 3 with
// checkCaptureAge().

std::optional<std::string> checkCaptureAge(std::optional<int64_t> maxCaptureAgeMs, int64_t nowMs,
                                           int64_t leftCompletedAtMs, int64_t rightCompletedAtMs);
// B §9.1 rule 3: the error message when `maxCaptureAgeMs` is given and either capture completed
// more than that long before `nowMs` (equality accepted); nullopt otherwise. Times are epoch
// ms (the caller parses `manifest.completed_at` and reads the injectable clock).

int64_t defaultTimingToleranceMs(const Json& normalization);
// max(50, 5 × normalization.time_bucket_ms); 50 when the bucket is missing or not an integer.

std::string summariseComparison(const Json& comparison);
// A short human summary for a terminal: the overall status, one line per dimension with its
// status (and timing, when present), then the first divergence. Ends with a newline.

}  // namespace rea::evidence
