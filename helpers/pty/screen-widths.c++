#include "helpers/pty/screen-widths.h"

#include <algorithm>

namespace rea::helper::widths {

bool contains(const WidthRange* ranges, size_t count, uint32_t codePoint) {
  const WidthRange* end = ranges + count;
  const WidthRange* found =
      std::upper_bound(ranges, end, codePoint,
                       [](uint32_t cp, const WidthRange& range) { return cp < range.first; });
  return found != ranges && codePoint <= (found - 1)->last;
}

}  // namespace rea::helper::widths
