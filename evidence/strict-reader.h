#pragma once
// StrictReader: reads untrusted JSON into typed values with the input semantics of SPEC B0.1 as
// this project tightens them (A14), recording every violation as an Issue instead of stopping:
//
// - no type coercion: "80" is not a number, 1.5 is not an integer, 1.0 is the integer 1;
// - `null` is never absence: a present null is a type error, defaults apply to absent keys only;
// - string lengths count UTF-16 code units (JavaScript's `length`);
// - every object declares its keys: any other key is an issue ("limits.frobs: unknown key").
//
// It holds no scenario knowledge (the scenario parser is its first user). Each reading function
// returns true when the value was valid and stored into `out`; on false, `out` is unchanged and
// at least one issue was recorded under the given path. Messages name the rule and, for a
// wrong value, what was found: "must be an integer from 1 to 1000, got 1001".
//
// Errors: none thrown (a bug aside); findings accumulate in issues().

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "evidence/issue.h"
#include "evidence/json.h"

namespace rea::evidence {

class StrictReader {
 public:
  static constexpr int64_t MAX_SAFE_INTEGER = 9007199254740991;  // 2^53 - 1 (JavaScript)
  static constexpr size_t UNLIMITED = std::numeric_limits<size_t>::max();

  std::vector<Issue>& issues() { return issues_; }
  size_t issueCount() const { return issues_.size(); }
  // Compare counts before and after reading a composite value to learn whether it was valid.

  void fail(const std::string& path, std::string message);
  // Records one issue (also used by callers for rules the reader does not know).

  bool object(const Json& value, const std::string& path, std::initializer_list<const char*> keys);
  // Requires an object whose keys are all in `keys`; every other key is reported at its own
  // path ("limits.frobs: unknown key"). Returns false only when `value` is not an object.

  static const Json* find(const Json& object, const char* key);
  // The member, or nullptr when absent. `object` must be an object.
  const Json* require(const Json& object, const std::string& path, const char* key);
  // The member, or nullptr after recording "<path>.<key>: is required".

  bool integer(const Json& value, const std::string& path, int64_t min, int64_t max, int64_t& out);
  bool integer(const Json& value, const std::string& path, int64_t min, int64_t max, int& out);
  // A number with an integral value in [min, max]; `max` = MAX_SAFE_INTEGER reads "at least min".
  bool boolean(const Json& value, const std::string& path, bool& out);
  bool string(const Json& value, const std::string& path, size_t maxUnits, std::string& out);
  // A string of at most `maxUnits` UTF-16 code units (UNLIMITED: no bound).
  bool absolutePath(const Json& value, const std::string& path, std::string& out);
  // A string starting with "/" (nothing else is checked: paths are used as written).
  bool literalTrue(const Json& value, const std::string& path);
  // Exactly `true`.
  bool oneOf(const Json& value, const std::string& path, std::initializer_list<const char*> names,
             size_t& index);
  // A string equal to one of `names`; stores its position in `index`.

  using ElementReader = std::function<void(const Json&, const std::string&, size_t)>;
  bool array(const Json& value, const std::string& path, size_t minItems, size_t maxItems,
             const ElementReader& readElement);
  // Requires an array of minItems..maxItems elements and calls readElement(element, path,
  // index) for each element even when the count is out of bounds, so every issue is found.
  // Returns true when the array and all its elements were valid.

  using MemberReader = std::function<void(const std::string&, const Json&, const std::string&)>;
  bool members(const Json& value, const std::string& path, const MemberReader& readMember);
  // Requires an object and calls readMember(key, value, path) for each member in input order
  // (for maps such as `environment`). Returns true when the object and all members were valid.

  bool strings(const Json& value, const std::string& path, size_t maxItems, size_t maxUnits,
               std::vector<std::string>& out);
  // An array of at most maxItems strings, each at most maxUnits long; `out` receives the valid
  // ones in order.

  static std::string describe(const Json& value);
  // A short form for "got …": null, true, 1.5, "short string", a string, an array, an object.

 private:
  std::vector<Issue> issues_;
};

}  // namespace rea::evidence
