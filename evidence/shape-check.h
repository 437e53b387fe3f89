#pragma once
// Shape checking of untrusted JSON (SPEC B0.1): typed reads of object members that record an
// Issue, with its path, for every missing member, wrong type or broken bound, and then go on, so
// that one pass lists every problem. Members nobody asks for are never looked at: that is how
// imported captures and Evidence records drop unknown keys (A14).
//
// Semantics mirrored from the baseline's schema library: no coercion (`"80"` is not a number),
// integers are JavaScript safe integers and `1.0` is the integer 1, `null` never stands in for
// an absent member, string lengths count UTF-16 code units.
//
// Errors: none thrown for bad input; findings go to the issue list given to the constructor.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/issue.h"
#include "evidence/json.h"

namespace rea::evidence {

constexpr int64_t MAX_SAFE_INTEGER = 9007199254740991;  // 2^53 − 1

std::optional<int64_t> safeInteger(const Json& value);
// The value as an integer when it is a JSON number with an integral value in ±MAX_SAFE_INTEGER
// (JavaScript's Number.isSafeInteger); nullopt for anything else.

bool isSha256Hex(std::string_view text);
// Exactly 64 lowercase hexadecimal digits.

class ShapeCheck {
 public:
  explicit ShapeCheck(std::vector<Issue>& issues);
  // `issues` must outlive this object; findings are appended to it.

  void fail(const std::string& path, std::string message);

  bool object(const Json& value, const std::string& path);
  bool array(const Json& value, const std::string& path);
  // True if `value` has that type; otherwise records "must be an object" / "must be an array".

  const Json* member(const Json& object, const std::string& path, const char* key);
  // The member `key` of `object` (whose path is `path`), or nullptr after recording
  // "<path>.<key>: is required". Returns nullptr without a finding when `object` is not an
  // object: its own check has reported that already.

  std::string string(const Json& object, const std::string& path, const char* key,
                     size_t minUtf16 = 0, size_t maxUtf16 = SIZE_MAX);
  std::string takeString(Json& object, const std::string& path, const char* key);
  // string() without bounds, moving the text out of `object` instead of copying it (frames'
  // data: most of a capture). `object` keeps a string there, of unspecified content.
  std::optional<std::string> nullableString(const Json& object, const std::string& path,
                                            const char* key);
  int64_t integer(const Json& object, const std::string& path, const char* key, int64_t min,
                  int64_t max = MAX_SAFE_INTEGER);
  std::optional<int64_t> nullableInteger(const Json& object, const std::string& path,
                                         const char* key, int64_t min,
                                         int64_t max = MAX_SAFE_INTEGER);
  bool boolean(const Json& object, const std::string& path, const char* key);
  std::optional<bool> optionalBoolean(const Json& object, const std::string& path, const char* key);
  // Absent → nullopt without a finding; present but not a boolean → a finding.
  std::string sha256(const Json& object, const std::string& path, const char* key);
  std::optional<std::string> nullableSha256(const Json& object, const std::string& path,
                                            const char* key);
  std::string timestamp(const Json& object, const std::string& path, const char* key);
  // An ISO-8601 UTC timestamp as parseIsoTimestamp() accepts it.
  void literal(const Json& object, const std::string& path, const char* key, const char* expected);
  std::vector<std::string> strings(const Json& object, const std::string& path, const char* key);
  // An array of strings.
  const Json* arrayMember(const Json& object, const std::string& path, const char* key);
  const Json* objectMember(const Json& object, const std::string& path, const char* key);
  // The member when it has that type; else nullptr after a finding.

  template <size_t N>
  size_t choice(const Json& object, const std::string& path, const char* key,
                const std::array<const char*, N>& names) {
    return choiceIndex(object, path, key, names.data(), N).value_or(0);
  }
  template <size_t N>
  std::optional<size_t> optionalChoice(const Json& object, const std::string& path, const char* key,
                                       const std::array<const char*, N>& names) {
    if (!isObjectWith(object, key)) return std::nullopt;
    return choiceIndex(object, path, key, names.data(), N);
  }
  // The index of the member's value in `names`; a finding (`must be one of "a", "b"`) and 0 (or
  // nullopt) when it is not one of them. optionalChoice: absent → nullopt without a finding.

 private:
  std::vector<Issue>& issues;

  static bool isObjectWith(const Json& object, const char* key);
  std::optional<size_t> choiceIndex(const Json& object, const std::string& path, const char* key,
                                    const char* const* names, size_t count);
};

}  // namespace rea::evidence
