#pragma once
// RenderBudget: the rendered-frame budget of B §6.11 as A15 changes it, kept apart from the
// raw-frame budget (both use the same limit values, limits.frames and limits.output_bytes). A
// frame costs the UTF-8 bytes of its serialized_state plus those of all its lines
// (RenderedScreen::cost()). The rule is evidence/frame-budget.h's: a frame that does not fit
// beside the kept ones replaces the newest of them (the supervisor, applying the same rule to
// the same costs, evicts them); only a frame costlier than the whole budget is dropped, and the
// renderer marked truncated. So whether rendering truncates depends on the screen, not on how
// the output was split into reads.
//
// Costs are of the frames as rendered here, before the supervisor normalises (and redacts) them;
// B §6.11 counts normalised frames, so the supervisor re-checks on assembly if they differ.
//
// exhausted() tells when no frame of a size can be accepted any more; Renderer::capture() then
// stops emulating (see screen-renderer.h), which is how the renderer stops costing CPU.
//
// Errors: none.

#include <cstdint>

#include "evidence/frame-budget.h"

namespace rea::helper {

class RenderBudget {
 public:
  RenderBudget(uint64_t maxFrames, uint64_t maxBytes) : budget(maxFrames, maxBytes) {}

  bool admit(uint64_t cost) { return budget.admit(cost).accepted; }
  // Accepts a frame of `cost` (counting it, after evicting the newest frames it replaces, and
  // returning true) or drops it (returning false and marking the budget truncated).

  void drop() { budget.drop(); }
  // Records a frame dropped without being measured.

  bool exhausted(int columns, int rows) const;
  // True if fewer bytes than any frame of this size costs fit in the whole budget: each line is
  // padded to `columns` UTF-16 code units, and a code unit never takes less than one UTF-8 byte,
  // so the lines alone cost at least columns × rows bytes.

  uint64_t frameBytesLimit() const { return budget.maxFrameBytes(); }
  // The most one frame may cost (it would replace every kept frame).
  uint64_t frames() const { return budget.frames(); }
  uint64_t bytes() const { return budget.bytes(); }
  bool truncated() const { return budget.truncated(); }

 private:
  evidence::RenderedFrameBudget budget;
};

}  // namespace rea::helper
