#include "supervisor/cli/json-write.h"

#include <cstdint>

#include <nlohmann/json.hpp>

#include "evidence/json-string.h"

namespace rea::supervisor {
namespace {

using evidence::Json;

class CompactWriter {
 public:
  explicit CompactWriter(const std::function<void(std::string_view)>& write) : write(write) {
    out.reserve(PIECE + PIECE / 4);
  }

  void value(const Json& value) {
    switch (value.type()) {
      case Json::value_t::null:
        out += "null";
        break;
      case Json::value_t::boolean:
        out += value.get<bool>() ? "true" : "false";
        break;
      case Json::value_t::number_integer:
        out += std::to_string(value.get<int64_t>());
        break;
      case Json::value_t::number_unsigned:
        out += std::to_string(value.get<uint64_t>());
        break;
      case Json::value_t::string:
        evidence::appendJsonString(out, value.get_ref<const std::string&>());
        break;
      case Json::value_t::array: {
        out.push_back('[');
        bool first = true;
        for (const Json& element : value) {
          if (!first) out.push_back(',');
          first = false;
          this->value(element);
        }
        out.push_back(']');
        break;
      }
      case Json::value_t::object: {
        out.push_back('{');
        bool first = true;
        for (auto it = value.begin(); it != value.end(); ++it) {
          if (!first) out.push_back(',');
          first = false;
          evidence::appendJsonString(out, it.key());
          out.push_back(':');
          this->value(*it);
        }
        out.push_back('}');
        break;
      }
      default:
        // Numbers with a fraction, binary, discarded: exactly as nlohmann writes them.
        out += value.dump();
        break;
    }
    if (out.size() >= PIECE) flush();
  }

  void flush() {
    if (!out.empty()) write(out);
    out.clear();
  }

 private:
  static constexpr size_t PIECE = 64 * 1024;
  const std::function<void(std::string_view)>& write;
  std::string out;
};

}  // namespace

void writeCompactJson(const Json& value, const std::function<void(std::string_view)>& write) {
  CompactWriter writer(write);
  writer.value(value);
  writer.flush();
}

std::string compactJson(const Json& value) {
  std::string text;
  writeCompactJson(value, [&text](std::string_view piece) { text.append(piece); });
  return text;
}

}  // namespace rea::supervisor
