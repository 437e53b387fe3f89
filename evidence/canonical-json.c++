#include "evidence/canonical-json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/json-string.h"
#include "evidence/utf.h"

namespace rea::evidence {
namespace {

// Where the serialiser writes: a buffer that is handed to the sink whenever it holds
// SPILL_BYTES, so a document of any size needs only that much memory (plus the longest string).
class Output {
 public:
  explicit Output(const CanonicalSink* sink) : sink(sink) {}
  std::string text;
  void spill() {
    if (sink != nullptr && text.size() >= SPILL_BYTES) {
      (*sink)(text);
      text.clear();
    }
  }
  void finish() {
    if (sink != nullptr && !text.empty()) (*sink)(text);
  }

 private:
  static constexpr size_t SPILL_BYTES = 64 * 1024;
  const CanonicalSink* sink;  // null: everything stays in `text`
};

// 2^53: every integer of at most this magnitude is exactly a double, and prints as itself.
constexpr uint64_t MAX_SAFE = 9007199254740992ull;

void appendValue(Output& output, const Json& value);

void appendObject(Output& output, std::vector<std::pair<std::string_view, const Json*>> members) {
  std::string& out = output.text;
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return compareUtf16(a.first, b.first) < 0; });
  out.push_back('{');
  bool first = true;
  for (const auto& [key, member] : members) {
    if (!first) out.push_back(',');
    first = false;
    appendJsonString(out, key);
    out.push_back(':');
    appendValue(output, *member);
  }
  out.push_back('}');
}

void appendValue(Output& output, const Json& value) {
  std::string& out = output.text;
  switch (value.type()) {
    case Json::value_t::null:
      out += "null";
      return;
    case Json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::string:
      appendJsonString(out, value.get_ref<const std::string&>());
      output.spill();
      return;
    case Json::value_t::number_integer: {
      int64_t v = value.get<int64_t>();
      uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      out += magnitude <= MAX_SAFE ? std::to_string(v) : formatEcmaNumber(static_cast<double>(v));
      return;
    }
    case Json::value_t::number_unsigned: {
      uint64_t v = value.get<uint64_t>();
      out += v <= MAX_SAFE ? std::to_string(v) : formatEcmaNumber(static_cast<double>(v));
      return;
    }
    case Json::value_t::number_float:
      out += formatEcmaNumber(value.get<double>());
      return;
    case Json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& element : value) {
        if (!first) out.push_back(',');
        first = false;
        appendValue(output, element);
      }
      out.push_back(']');
      return;
    }
    case Json::value_t::object: {
      std::vector<std::pair<std::string_view, const Json*>> members;
      members.reserve(value.size());
      for (auto it = value.begin(); it != value.end(); ++it)
        members.emplace_back(it.key(), &*it);
      appendObject(output, std::move(members));
      return;
    }
    case Json::value_t::binary:
    case Json::value_t::discarded:
      break;
  }
  throw std::invalid_argument("canonicalJson: value has no JSON form");
}

}  // namespace

std::string formatEcmaNumber(double value) {
  if (!std::isfinite(value)) throw std::invalid_argument("formatEcmaNumber: not finite");
  if (value == 0) return "0";  // also -0
  std::string out;
  if (value < 0) {
    out.push_back('-');
    value = -value;
  }
  // Shortest round-trip digits, in scientific form "d[.ddd]e±x".
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string sci(buf, result.ptr);
  size_t ePos = sci.find('e');
  std::string digits = sci.substr(0, ePos);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  int exponent = std::stoi(sci.substr(ePos + 1));
  int k = static_cast<int>(digits.size());
  int n = exponent + 1;  // value = 0.digits × 10^n
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, static_cast<size_t>(n));
    out.push_back('.');
    out += digits.substr(static_cast<size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += digits;
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out += digits.substr(1);
    }
    out.push_back('e');
    out.push_back(n - 1 >= 0 ? '+' : '-');
    out += std::to_string(std::abs(n - 1));
  }
  return out;
}

std::string canonicalJson(const Json& value) {
  Output output(nullptr);
  appendValue(output, value);
  return std::move(output.text);
}

void canonicalJsonTo(const Json& value, const CanonicalSink& sink) {
  Output output(&sink);
  appendValue(output, value);
  output.finish();
}

void canonicalObjectTo(std::vector<std::pair<std::string_view, const Json*>> members,
                       const CanonicalSink& sink) {
  Output output(&sink);
  appendObject(output, std::move(members));
  output.finish();
}

}  // namespace rea::evidence
