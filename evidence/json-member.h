#pragma once
// Reading a document defensively: a member that is absent, or asked of something that is not an
// object, reads as null. The comparison, the stability summary, the capture summary and the HTML
// report read captures and comparisons this way, so that whatever shape a document has they never
// throw on it (operator[] on a const Json is undefined for a missing key).

#include "evidence/json.h"

namespace rea::evidence {

const Json& member(const Json& object, const char* key);
// object[key], or a null value when `object` is not an object or lacks the key.

}  // namespace rea::evidence
