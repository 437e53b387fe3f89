#pragma once
// Frame budgets spent by bytes, not by reads (SPEC A15, changing B §6.5 and §6.11): whether a
// capture is truncated depends on the output bytes, the elapsed time and the declared limits,
// never on how many reads the kernel split the output into. Pure bookkeeping; the owner keeps
// the frames and does what admit() says.
//
// Raw frames (limits.frames, limits.output_bytes): a read whose bytes would take the total past
// output_bytes is dropped (truncated), as in B; otherwise it becomes a new frame while fewer than
// `frames` frames exist, and is appended to the last frame (COALESCE, keeping that frame's time)
// once `frames` is reached. The count can no longer truncate a capture.
//
// Rendered frames (same limit values; a frame costs the UTF-8 bytes of its serialized_state and
// lines): a frame is appended while the count and the bytes allow; otherwise the newest frames
// are evicted, as few as needed, so that it fits as the last one (REPLACE: the screen after
// these reads, as a larger read would have shown it). Only a single frame costlier than
// output_bytes is dropped (truncated), which depends on the screen, not on the reads.
//
// Errors: none thrown.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rea::evidence {

class RawFrameBudget {
 public:
  RawFrameBudget(uint64_t maxFrames, uint64_t maxBytes)
      : maxFrames(maxFrames), maxBytes(maxBytes) {}

  enum class Admission { APPEND, COALESCE, DROP };
  Admission admit(uint64_t bytes);
  bool fits(uint64_t bytes) const { return bytes <= maxBytes - usedBytes; }
  // Whether admit(bytes) would take it (without counting it).

  uint64_t frames() const { return frameCount; }
  uint64_t bytes() const { return usedBytes; }
  bool truncated() const { return wasTruncated; }

 private:
  uint64_t maxFrames;
  uint64_t maxBytes;
  uint64_t frameCount = 0;
  uint64_t usedBytes = 0;
  bool wasTruncated = false;
};

class RenderedFrameBudget {
 public:
  RenderedFrameBudget(uint64_t maxFrames, uint64_t maxBytes)
      : maxFrames(maxFrames), maxBytes(maxBytes) {}

  struct Admission {
    bool accepted = false;  // false: dropped, the budget is truncated
    size_t evict = 0;       // when accepted: remove this many newest frames first, then append
  };
  Admission admit(uint64_t cost);

  uint64_t frames() const { return costs.size(); }
  uint64_t bytes() const { return usedBytes; }
  uint64_t maxFrameBytes() const { return maxBytes; }
  bool truncated() const { return wasTruncated; }
  void drop() { wasTruncated = true; }
  // Records a frame dropped without being measured.

 private:
  uint64_t maxFrames;
  uint64_t maxBytes;
  std::vector<uint64_t> costs;  // of the frames kept, oldest first
  uint64_t usedBytes = 0;
  bool wasTruncated = false;
};

}  // namespace rea::evidence
