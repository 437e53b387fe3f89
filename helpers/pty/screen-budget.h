#pragma once
// RenderBudget: the rendered-frame budget of B §6.11, kept apart from the raw-frame budget (both
// use the same limit values, limits.frames and limits.output_bytes). A frame costs the UTF-8
// bytes of its serialized_state plus those of all its lines (RenderedScreen::cost()). A frame is
// dropped, and the renderer marked truncated, if the frame count has reached maxFrames or the
// cumulative cost plus this frame's cost would exceed maxBytes; the check is per frame, so a
// later, cheaper frame can still be accepted.
//
// Costs are of the frames as rendered here, before the supervisor normalises (and redacts) them;
// B §6.11 counts normalised frames, so the supervisor re-checks on assembly if they differ.
//
// exhausted() tells when no frame can be accepted any more; Renderer::capture() then stops
// emulating (see screen-renderer.h), which is how the renderer stops costing CPU.
//
// Errors: none.

#include <cstdint>

namespace rea::helper {

class RenderBudget {
 public:
  RenderBudget(uint64_t maxFrames, uint64_t maxBytes) : maxFrames(maxFrames), maxBytes(maxBytes) {}

  bool admit(uint64_t cost);
  // Accepts a frame of `cost` (counting it and returning true) or drops it (returning false and
  // marking the budget truncated).

  void drop() { wasTruncated = true; }
  // Records a frame dropped without being measured.

  bool exhausted(int columns, int rows) const;
  // True if the frame count has reached maxFrames, or fewer bytes are left than any frame of this
  // size costs: each line is padded to `columns` UTF-16 code units, and a code unit never takes
  // less than one UTF-8 byte, so the lines alone cost at least columns × rows bytes.

  uint64_t remainingBytes() const { return maxBytes - usedBytes; }
  uint64_t frames() const { return acceptedFrames; }
  uint64_t bytes() const { return usedBytes; }
  bool truncated() const { return wasTruncated; }

 private:
  uint64_t maxFrames;
  uint64_t maxBytes;
  uint64_t acceptedFrames = 0;
  uint64_t usedBytes = 0;
  bool wasTruncated = false;
};

}  // namespace rea::helper
