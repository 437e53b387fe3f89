#include "helpers/pty/screen-budget.h"

namespace rea::helper {

bool RenderBudget::admit(uint64_t cost) {
  if (acceptedFrames >= maxFrames || cost > maxBytes - usedBytes) {
    wasTruncated = true;
    return false;
  }
  acceptedFrames++;
  usedBytes += cost;
  return true;
}

bool RenderBudget::exhausted(int columns, int rows) const {
  uint64_t minimumCost = static_cast<uint64_t>(columns) * static_cast<uint64_t>(rows);
  return acceptedFrames >= maxFrames || remainingBytes() < minimumCost;
}

}  // namespace rea::helper
