#include "evidence/shape-check.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "evidence/timestamp.h"
#include "evidence/utf.h"

namespace rea::evidence {
namespace {

std::string integerRule(int64_t min, int64_t max) {
  if (max == MAX_SAFE_INTEGER) {
    if (min == 0) return "must be a non-negative integer";
    if (min == 1) return "must be a positive integer";
    if (min == -MAX_SAFE_INTEGER) return "must be an integer";
    return "must be an integer >= " + std::to_string(min);
  }
  return "must be an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

std::string lengthRule(size_t min, size_t max) {
  if (max == SIZE_MAX) return min == 0 ? "must be a string" : "must be a non-empty string";
  return "must be a string of " + std::to_string(min) + " to " + std::to_string(max) +
         " characters";
}

}  // namespace

std::optional<int64_t> safeInteger(const Json& value) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned()) {
      auto v = value.get<uint64_t>();
      if (v > static_cast<uint64_t>(MAX_SAFE_INTEGER)) return std::nullopt;
      return static_cast<int64_t>(v);
    }
    auto v = value.get<int64_t>();
    if (v > MAX_SAFE_INTEGER || v < -MAX_SAFE_INTEGER) return std::nullopt;
    return v;
  }
  if (value.is_number_float()) {
    double v = value.get<double>();
    if (!std::isfinite(v) || std::trunc(v) != v) return std::nullopt;
    if (std::fabs(v) > static_cast<double>(MAX_SAFE_INTEGER)) return std::nullopt;
    return static_cast<int64_t>(v);  // -0.0 becomes 0, as in JavaScript
  }
  return std::nullopt;
}

bool isSha256Hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

ShapeCheck::ShapeCheck(std::vector<Issue>& issues) : issues(issues) {}

void ShapeCheck::fail(const std::string& path, std::string message) {
  issues.push_back(Issue{path, std::move(message)});
}

bool ShapeCheck::object(const Json& value, const std::string& path) {
  if (value.is_object()) return true;
  fail(path, "must be an object");
  return false;
}

bool ShapeCheck::array(const Json& value, const std::string& path) {
  if (value.is_array()) return true;
  fail(path, "must be an array");
  return false;
}

bool ShapeCheck::isObjectWith(const Json& object, const char* key) {
  return object.is_object() && object.contains(key);
}

const Json* ShapeCheck::member(const Json& object, const std::string& path, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end()) {
    fail(childPath(path, key), "is required");
    return nullptr;
  }
  return &*it;
}

std::string ShapeCheck::takeString(Json& object, const std::string& path, const char* key) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return {};
  if (value->is_string()) return std::move(object[key].get_ref<std::string&>());
  fail(childPath(path, key), lengthRule(0, SIZE_MAX));
  return {};
}

std::string ShapeCheck::string(const Json& object, const std::string& path, const char* key,
                               size_t minUtf16, size_t maxUtf16) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return {};
  if (value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    // Without an upper bound only emptiness matters: counting the units of every frame's data
    // cost an import as much as copying it.
    size_t length = maxUtf16 == SIZE_MAX && minUtf16 <= 1 ? text.size() : utf16Length(text);
    if (length >= minUtf16 && length <= maxUtf16) return text;
  }
  fail(childPath(path, key), lengthRule(minUtf16, maxUtf16));
  return {};
}

std::optional<std::string> ShapeCheck::nullableString(const Json& object, const std::string& path,
                                                      const char* key) {
  const Json* value = member(object, path, key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (value->is_string()) return value->get<std::string>();
  fail(childPath(path, key), "must be a string or null");
  return std::nullopt;
}

int64_t ShapeCheck::integer(const Json& object, const std::string& path, const char* key,
                            int64_t min, int64_t max) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return min;
  auto number = safeInteger(*value);
  if (number && *number >= min && *number <= max) return *number;
  fail(childPath(path, key), integerRule(min, max));
  return min;
}

std::optional<int64_t> ShapeCheck::nullableInteger(const Json& object, const std::string& path,
                                                   const char* key, int64_t min, int64_t max) {
  const Json* value = member(object, path, key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  auto number = safeInteger(*value);
  if (number && *number >= min && *number <= max) return number;
  fail(childPath(path, key), integerRule(min, max) + " or null");
  return std::nullopt;
}

bool ShapeCheck::boolean(const Json& object, const std::string& path, const char* key) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return false;
  if (value->is_boolean()) return value->get<bool>();
  fail(childPath(path, key), "must be a boolean");
  return false;
}

std::optional<bool> ShapeCheck::optionalBoolean(const Json& object, const std::string& path,
                                                const char* key) {
  if (!isObjectWith(object, key)) return std::nullopt;
  return boolean(object, path, key);
}

std::string ShapeCheck::sha256(const Json& object, const std::string& path, const char* key) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return {};
  if (value->is_string() && isSha256Hex(value->get_ref<const std::string&>())) {
    return value->get<std::string>();
  }
  fail(childPath(path, key), "must be 64 lowercase hexadecimal digits");
  return {};
}

std::optional<std::string> ShapeCheck::nullableSha256(const Json& object, const std::string& path,
                                                      const char* key) {
  const Json* value = member(object, path, key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (value->is_string() && isSha256Hex(value->get_ref<const std::string&>())) {
    return value->get<std::string>();
  }
  fail(childPath(path, key), "must be 64 lowercase hexadecimal digits or null");
  return std::nullopt;
}

std::string ShapeCheck::timestamp(const Json& object, const std::string& path, const char* key) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return {};
  if (value->is_string() && parseIsoTimestamp(value->get_ref<const std::string&>())) {
    return value->get<std::string>();
  }
  fail(childPath(path, key),
       "must be an ISO-8601 UTC timestamp (YYYY-MM-DDTHH:MM[:SS[.fraction]]Z)");
  return {};
}

void ShapeCheck::literal(const Json& object, const std::string& path, const char* key,
                         const char* expected) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return;
  if (value->is_string() && value->get_ref<const std::string&>() == expected) return;
  fail(childPath(path, key), std::string("must be \"") + expected + "\"");
}

std::vector<std::string> ShapeCheck::strings(const Json& object, const std::string& path,
                                             const char* key) {
  std::vector<std::string> out;
  const Json* list = arrayMember(object, path, key);
  if (list == nullptr) return out;
  std::string listPath = childPath(path, key);
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& item = (*list)[i];
    if (item.is_string()) {
      out.push_back(item.get<std::string>());
    } else {
      fail(indexPath(listPath, i), "must be a string");
    }
  }
  return out;
}

const Json* ShapeCheck::arrayMember(const Json& object, const std::string& path, const char* key) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return nullptr;
  return array(*value, childPath(path, key)) ? value : nullptr;
}

const Json* ShapeCheck::objectMember(const Json& object, const std::string& path, const char* key) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return nullptr;
  return this->object(*value, childPath(path, key)) ? value : nullptr;
}

std::optional<size_t> ShapeCheck::choiceIndex(const Json& object, const std::string& path,
                                              const char* key, const char* const* names,
                                              size_t count) {
  const Json* value = member(object, path, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    for (size_t i = 0; i < count; ++i) {
      if (text == names[i]) return i;
    }
  }
  std::string rule = "must be one of ";
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) rule += ", ";
    rule += '"';
    rule += names[i];
    rule += '"';
  }
  fail(childPath(path, key), std::move(rule));
  return std::nullopt;
}

}  // namespace rea::evidence
