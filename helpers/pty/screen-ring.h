#pragma once
// RowRing: the rows of one screen buffer (scrollback, then the visible rows) in a circular
// buffer, so that scrolling the whole screen up by one row is O(1): the oldest row is recycled
// as the new bottom row instead of every row being copied (libvterm's own screen layer copies
// the whole screen on every scroll, which is what made it slow).
//
// Rows are addressed by logical index, 0 = oldest. A row's storage is reused when it is evicted,
// so a steady stream of scrolling allocates nothing.
//
// Errors: none; indices out of range are bugs (checked with assert in debug builds).

#include "helpers/pty/screen-cell.h"

#include <cstddef>
#include <vector>

namespace rea::helper {

class RowRing {
 public:
  explicit RowRing(size_t capacity);

  size_t size() const { return count; }
  size_t capacity() const { return limit; }

  Row& operator[](size_t i) { return slots[slotOf(i)]; }
  const Row& operator[](size_t i) const { return slots[slotOf(i)]; }

  Row& pushBack();
  // Appends an empty row; when the ring is full the oldest row is evicted (and its storage
  // reused). Returns the new row.

  void popBack();
  // Removes the newest row. Precondition: size() > 0.

  void popFront(size_t n);
  // Removes the n oldest rows. Precondition: n <= size().

  void setCapacity(size_t capacity);
  // Changes the capacity, evicting the oldest rows if more than `capacity` are held.

  void swapRows(size_t i, size_t j);
  // Exchanges two rows (their storage, in O(1)).

  void rotate(size_t first, size_t middle, size_t last);
  // Like std::rotate over logical indices: [middle, last) moves to `first`. O(last - first).

  template <typename F>
  void forEachRow(F&& f) {
    for (size_t i = 0; i < count; i++)
      f(slots[slotOf(i)]);
  }

 private:
  std::vector<Row> slots;  // grows up to `limit`; logical row i lives at (head + i) % size
  size_t limit;
  size_t head = 0;
  size_t count = 0;

  size_t slotOf(size_t i) const {
    size_t slot = head + i;
    return slot >= slots.size() ? slot - slots.size() : slot;
  }
  void reverse(size_t first, size_t last);
  void relayout();
  // Moves the rows so that logical row 0 is in slot 0.
};

}  // namespace rea::helper
