#pragma once
// One member of a standalone request (helpers/common/standalone.h), for the helpers' own
// `--standalone` front ends: absent gives the fallback, a value of the wrong type fails naming
// the member.
//
// Errors: KJ_REQUIRE("null field", name) for a null member, KJ_FAIL_REQUIRE("malformed field",
// name, ...) for one that does not convert.

#include <kj/debug.h>
#include <nlohmann/json.hpp>

#include "evidence/json.h"

namespace rea::helper {

template <typename T>
T field(const evidence::Json& object, const char* name, T fallback) {
  auto it = object.find(name);
  if (it == object.end()) return fallback;
  KJ_REQUIRE(!it->is_null(), "null field", name);
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception& e) {
    KJ_FAIL_REQUIRE("malformed field", name, e.what());
  }
}

}  // namespace rea::helper
