#include "evidence/frame-budget.h"

namespace rea::evidence {

RawFrameBudget::Admission RawFrameBudget::admit(uint64_t bytes) {
  if (!fits(bytes)) {
    wasTruncated = true;
    return Admission::DROP;
  }
  usedBytes += bytes;
  if (frameCount < maxFrames) {
    ++frameCount;
    return Admission::APPEND;
  }
  return Admission::COALESCE;
}

RenderedFrameBudget::Admission RenderedFrameBudget::admit(uint64_t cost) {
  Admission admission;
  if (cost > maxBytes || maxFrames == 0) {
    wasTruncated = true;
    return admission;
  }
  while (costs.size() >= maxFrames || cost > maxBytes - usedBytes) {
    usedBytes -= costs.back();  // never empty here: an empty budget fits any frame <= maxBytes
    costs.pop_back();
    ++admission.evict;
  }
  costs.push_back(cost);
  usedBytes += cost;
  admission.accepted = true;
  return admission;
}

}  // namespace rea::evidence
