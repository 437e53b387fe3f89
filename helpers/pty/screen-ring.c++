#include "helpers/pty/screen-ring.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace rea::helper {

RowRing::RowRing(size_t capacity) : limit(capacity) {
  assert(capacity > 0);
}

Row& RowRing::pushBack() {
  if (count == limit) {
    // Full: the oldest slot becomes the newest row.
    Row& row = slots[head];
    head = head + 1 == slots.size() ? 0 : head + 1;
    row.reset();
    return row;
  }
  if (count == slots.size()) {
    // Every slot is in use but the capacity allows more: grow the storage.
    relayout();
    slots.emplace_back();
    count++;
    return slots.back();
  }
  count++;
  Row& row = slots[slotOf(count - 1)];
  row.reset();
  return row;
}

void RowRing::popBack() {
  assert(count > 0);
  slots[slotOf(count - 1)].reset();
  count--;
}

void RowRing::popFront(size_t n) {
  assert(n <= count);
  for (size_t i = 0; i < n; i++)
    slots[slotOf(i)].reset();
  head = slots.empty() ? 0 : (head + n) % slots.size();
  count -= n;
}

void RowRing::setCapacity(size_t capacity) {
  assert(capacity > 0);
  if (count > capacity) popFront(count - capacity);
  relayout();
  if (slots.size() > capacity) slots.resize(capacity);
  limit = capacity;
}

void RowRing::relayout() {
  std::rotate(slots.begin(), slots.begin() + head, slots.end());
  head = 0;
}

void RowRing::swapRows(size_t i, size_t j) {
  assert(i < count && j < count);
  std::swap(slots[slotOf(i)], slots[slotOf(j)]);
}

void RowRing::reverse(size_t first, size_t last) {
  while (first + 1 < last) {
    swapRows(first, last - 1);
    first++;
    last--;
  }
}

void RowRing::rotate(size_t first, size_t middle, size_t last) {
  assert(first <= middle && middle <= last && last <= count);
  if (first == middle || middle == last) return;
  reverse(first, middle);
  reverse(middle, last);
  reverse(first, last);
}

}  // namespace rea::helper
