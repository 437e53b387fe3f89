#pragma once
// Assembly of the renderer's observations (B §6.11, A11, A3): the pty helper's rendered frames
// become `rendered_frames`, its answers to terminal queries become automatic interaction events.
// Pure: times arrive as a bucketing function, text goes through the scenario's normaliser.
//
// Redaction (A3) of a frame goes further than N() on each text, because a screen can show a
// secret that no single text holds contiguously:
//   - `lines`: a secret (or sensitive echo) is looked for in the concatenation of all lines, so
//     a value that wraps from one row into the next is found; its first row gets `<redacted>`,
//     the rest of it is removed from the rows it continues in. Lines are padded to the width, so
//     only text reaching the last column can join the next row.
//   - `serialized_state`: looked for in its text with every escape sequence, CR and LF left out
//     (a value interrupted by an SGR change, a row break or a cursor-forward run is found); the
//     escape sequences are kept, the value's text becomes one `<redacted>`.
//   - A frame captured while a value was only partly written (its reads split it: the raw
//     stream holds the whole value across this frame's chunk boundary) shows a prefix of it;
//     every occurrence of that prefix in this frame is redacted the same way.
// Then each line and the state get the full N() (paths, pids, ports, patterns) like terminal
// text. These rules can redact text that merely looks like a joined secret; they never leave a
// secret visible.
//
// Errors: none thrown.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "evidence/capture.h"
#include "evidence/normalise.h"
#include "supervisor/links/pty-link.h"

namespace rea::supervisor {

struct RenderedAssembly {
  std::vector<evidence::RenderedFrame> frames;  // sorted by (at_ms, capture order), renumbered
  bool truncated = false;  // a normalised frame did not fit the rendered budget (B §6.11)
};

RenderedAssembly assembleRenderedFrames(PtyRecord& pty,
                                        const std::function<int64_t(uint64_t)>& bucketedMs,
                                        const evidence::NormaliseContext& terminalContext,
                                        uint64_t maxFrames, uint64_t maxBytes);
// Consumes `pty.rendered` (the raw output is only read): each frame's text is released as soon
// as its normalised form exists, so a capture never holds both forms of every frame (with the
// whole scrollback in each `serialized_state`, they are the largest part of a long capture).
// `terminalContext` is the raw frames' context (temp root, root pid). The helper counted its
// budget on unnormalised frames; B §6.11 counts normalised ones, so frames are re-counted here
// (maxFrames = limits.frames, maxBytes = limits.output_bytes) by evidence/frame-budget.h: past
// the budget a frame replaces the newest ones (A15); only a frame costlier than the whole budget
// is dropped, truncating.

evidence::InteractionEvent autoReplyEvent(const PtyAutoReply& reply, int64_t atMs,
                                          const evidence::Normaliser& inputText);
// An answered terminal query as an interaction event: type input, outcome dispatched,
// scheduled = dispatched = `atMs`, `automatic: true`, data `<auto-reply:QUERY>` followed by the
// normalised reply bytes (e.g. `<auto-reply:DSR-cursor>\u001b[3;1R`). `sequence` is left 0.

std::vector<std::string> redactAcrossLines(const std::vector<std::string>& lines,
                                           const std::vector<std::string>& needles);
std::string redactSerializedState(const std::string& state,
                                  const std::vector<std::string>& needles);
// The two redaction passes described above (exposed for tests). `needles` are tried in order
// (put longer ones first); empty needles are ignored.

}  // namespace rea::supervisor
