#pragma once
// sameJson(a, b): the same JSON value with the same kinds of numbers (unsigned, signed, float)
// and the same members in the same order. nlohmann's operator== is looser (it compares 1 and
// 1.0 equal). The fast parser's differential checks (its unit test and
// its fuzz target) need the strict form: that is what keeps rea's file reading unchanged.

#include <cstddef>

#include "evidence/json.h"

namespace rea::test {

inline bool sameJson(const evidence::Json& a, const evidence::Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
      if (i.key() != j.key() || !sameJson(i.value(), j.value())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k) {
      if (!sameJson(a[k], b[k])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace rea::test
