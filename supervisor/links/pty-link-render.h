#pragma once
// The rendered part of the pty helper's stream (B §6.11, A11), for PtyLink only: converts the
// helper's `rendered` and `replied` events into PtyRenderedFrame / PtyAutoReply and checks them
// (an untrusted helper: a broken rule stops it). Owns the rendered budget's running count.
//
// Errors: none thrown; each check returns the broken rule (broken-rule.h), null when the event
// is fine.

#include <cstdint>
#include <kj/common.h>
#include <string>

#include "evidence/frame-budget.h"
#include "schema/pty.capnp.h"
#include "supervisor/links/broken-rule.h"
#include "supervisor/links/pty-link.h"

namespace rea::supervisor {

class RenderedStreamCheck {
 public:
  explicit RenderedStreamCheck(const PtyLaunch& launch);

  kj::Maybe<BrokenRule> frame(schema::RenderedFrame::Reader in, uint64_t atNs, uint64_t bytesBefore,
                              PtyRenderedFrame& out, size_t& evict);
  // Converts one frame into `out`, or returns the rule it breaks: a size outside the terminal's
  // range, `lines` not one per row, a cursor off the screen, text that is not UTF-8, a frame
  // costlier than the whole rendered budget. `evict`: how many newest frames it replaces (A15,
  // evidence/frame-budget.h), as the helper's budget decided on the same costs.

  kj::Maybe<BrokenRule> reply(schema::QueryReply::Reader in, uint64_t atNs, PtyAutoReply& out);
  // Converts one answered query, or returns the rule it breaks (an unknown query name, an empty
  // or oversized reply, a reply that is not UTF-8).

  kj::Maybe<BrokenRule> done(bool renderTruncated, uint32_t renderedFrames) const;
  // The summary's claims against what arrived.

 private:
  evidence::RenderedFrameBudget budget;
  uint32_t frames = 0;  // received
};

}  // namespace rea::supervisor
