#include "evidence/strict-reader.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "evidence/canonical-json.h"
#include "evidence/utf.h"

namespace rea::evidence {
namespace {

constexpr size_t DESCRIBED_STRING_UNITS = 40;  // longer strings are described, not quoted

std::string integerRangeRule(int64_t min, int64_t max) {
  if (max == StrictReader::MAX_SAFE_INTEGER) {
    return "must be an integer of at least " + std::to_string(min);
  }
  return "must be an integer from " + std::to_string(min) + " to " + std::to_string(max);
}

std::string arrayRule(size_t minItems, size_t maxItems) {
  if (maxItems == StrictReader::UNLIMITED) {
    return minItems == 0 ? "must be an array"
                         : "must be an array of at least " + std::to_string(minItems) + " items";
  }
  if (minItems == 0) return "must be an array of at most " + std::to_string(maxItems) + " items";
  return "must be an array of " + std::to_string(minItems) + " to " + std::to_string(maxItems) +
         " items";
}

// The value of a number when it is integral (1.0 counts; 1.5, NaN and non-numbers do not).
// Doubles are exact for every bound we check (all below 2^53), so range checks on the double
// give the right answer even for huge 64-bit inputs.
bool integralValue(const Json& value, double& out) {
  if (value.is_number_integer()) {
    out = value.is_number_unsigned() ? static_cast<double>(value.get<uint64_t>())
                                     : static_cast<double>(value.get<int64_t>());
    return true;
  }
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (std::isfinite(d) && std::trunc(d) == d) {
      out = d;
      return true;
    }
  }
  return false;
}

}  // namespace

void StrictReader::fail(const std::string& path, std::string message) {
  issues_.push_back(Issue{path, std::move(message)});
}

bool StrictReader::object(const Json& value, const std::string& path,
                          std::initializer_list<const char*> keys) {
  if (!value.is_object()) {
    fail(path, "must be an object, got " + describe(value));
    return false;
  }
  for (const auto& member : value.items()) {
    bool known = false;
    for (const char* key : keys) {
      if (member.key() == key) {
        known = true;
        break;
      }
    }
    if (!known) fail(childPath(path, member.key()), "unknown key");
  }
  return true;
}

const Json* StrictReader::find(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const Json* StrictReader::require(const Json& object, const std::string& path, const char* key) {
  const Json* member = find(object, key);
  if (member == nullptr) fail(childPath(path, key), "is required");
  return member;
}

bool StrictReader::integer(const Json& value, const std::string& path, int64_t min, int64_t max,
                           int64_t& out) {
  double number;
  if (!integralValue(value, number) || number < static_cast<double>(min) ||
      number > static_cast<double>(max)) {
    fail(path, integerRangeRule(min, max) + ", got " + describe(value));
    return false;
  }
  out = static_cast<int64_t>(number);
  return true;
}

bool StrictReader::integer(const Json& value, const std::string& path, int64_t min, int64_t max,
                           int& out) {
  int64_t wide;
  if (!integer(value, path, min, max, wide)) return false;
  out = static_cast<int>(wide);  // callers pass bounds that fit an int
  return true;
}

bool StrictReader::boolean(const Json& value, const std::string& path, bool& out) {
  if (!value.is_boolean()) {
    fail(path, "must be a boolean, got " + describe(value));
    return false;
  }
  out = value.get<bool>();
  return true;
}

bool StrictReader::string(const Json& value, const std::string& path, size_t maxUnits,
                          std::string& out) {
  if (!value.is_string()) {
    fail(path, "must be a string, got " + describe(value));
    return false;
  }
  const auto& text = value.get_ref<const std::string&>();
  if (maxUnits != UNLIMITED) {
    size_t units = utf16Length(text);
    if (units > maxUnits) {
      fail(path, "must be a string of at most " + std::to_string(maxUnits) +
                     " characters (UTF-16 code units), got " + std::to_string(units));
      return false;
    }
  }
  out = text;
  return true;
}

bool StrictReader::absolutePath(const Json& value, const std::string& path, std::string& out) {
  if (!value.is_string() || value.get_ref<const std::string&>().rfind('/', 0) != 0) {
    fail(path, "must be a string starting with /, got " + describe(value));
    return false;
  }
  // The system sees a path only up to its first NUL: refuse it rather than check one path and
  // use another.
  if (value.get_ref<const std::string&>().find('\0') != std::string::npos) {
    fail(path, "must not contain a NUL character");
    return false;
  }
  out = value.get<std::string>();
  return true;
}

bool StrictReader::literalTrue(const Json& value, const std::string& path) {
  if (!value.is_boolean() || !value.get<bool>()) {
    fail(path, "must be true, got " + describe(value));
    return false;
  }
  return true;
}

bool StrictReader::oneOf(const Json& value, const std::string& path,
                         std::initializer_list<const char*> names, size_t& index) {
  if (value.is_string()) {
    size_t i = 0;
    for (const char* name : names) {
      if (value.get_ref<const std::string&>() == name) {
        index = i;
        return true;
      }
      ++i;
    }
  }
  std::string rule = "must be one of";
  const char* separator = " ";
  for (const char* name : names) {
    rule += separator;
    rule += '"';
    rule += name;
    rule += '"';
    separator = ", ";
  }
  fail(path, rule + ", got " + describe(value));
  return false;
}

bool StrictReader::array(const Json& value, const std::string& path, size_t minItems,
                         size_t maxItems, const ElementReader& readElement) {
  size_t before = issues_.size();
  if (!value.is_array()) {
    fail(path, arrayRule(minItems, maxItems) + ", got " + describe(value));
    return false;
  }
  if (value.size() < minItems || value.size() > maxItems) {
    fail(path, arrayRule(minItems, maxItems) + ", got " + std::to_string(value.size()) + " items");
  }
  for (size_t i = 0; i < value.size(); ++i) {
    readElement(value[i], indexPath(path, i), i);
  }
  return issues_.size() == before;
}

bool StrictReader::members(const Json& value, const std::string& path,
                           const MemberReader& readMember) {
  size_t before = issues_.size();
  if (!value.is_object()) {
    fail(path, "must be an object, got " + describe(value));
    return false;
  }
  for (const auto& member : value.items()) {
    readMember(member.key(), member.value(), childPath(path, member.key()));
  }
  return issues_.size() == before;
}

bool StrictReader::strings(const Json& value, const std::string& path, size_t maxItems,
                           size_t maxUnits, std::vector<std::string>& out) {
  return array(value, path, 0, maxItems,
               [&](const Json& element, const std::string& elementPath, size_t) {
                 std::string text;
                 if (string(element, elementPath, maxUnits, text)) out.push_back(std::move(text));
               });
}

std::string StrictReader::describe(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
      return std::to_string(value.get<int64_t>());
    case Json::value_t::number_unsigned:
      return std::to_string(value.get<uint64_t>());
    case Json::value_t::number_float:
      return std::isfinite(value.get<double>()) ? formatEcmaNumber(value.get<double>())
                                                : "a non-finite number";
    case Json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      if (utf16Length(text) > DESCRIBED_STRING_UNITS) return "a string";
      return value.dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "a non-JSON value";
  }
}

}  // namespace rea::evidence
