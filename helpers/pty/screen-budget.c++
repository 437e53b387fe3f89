#include "helpers/pty/screen-budget.h"

namespace rea::helper {

bool RenderBudget::exhausted(int columns, int rows) const {
  uint64_t minimumCost = static_cast<uint64_t>(columns) * static_cast<uint64_t>(rows);
  return budget.maxFrameBytes() < minimumCost;
}

}  // namespace rea::helper
