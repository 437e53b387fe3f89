#include "helpers/shim/client/route-reply.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

namespace rea::helper {
namespace {

constexpr int MAX_DEPTH = 32;

struct JsonValue {
  enum class Type { NUL, BOOLEAN, NUMBER, STRING, ARRAY, OBJECT };
  Type type = Type::NUL;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> items;                            // ARRAY
  std::vector<std::pair<std::string, JsonValue>> members;  // OBJECT, in order

  const JsonValue* find(const char* key) const {
    const JsonValue* found = nullptr;
    for (const auto& member : members) {
      if (member.first == key) found = &member.second;  // the last duplicate wins, as in JS
    }
    return found;
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : text(text) {}

  bool readDocument(JsonValue& value) {
    skipSpace();
    if (!readValue(value, 0)) return false;
    skipSpace();
    return pos == text.size();
  }

 private:
  const std::string& text;
  size_t pos = 0;

  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r')) {
      ++pos;
    }
  }

  bool literal(const char* word) {
    size_t n = strlen(word);
    if (text.compare(pos, n, word) != 0) return false;
    pos += n;
    return true;
  }

  bool readValue(JsonValue& value, int depth) {
    if (depth > MAX_DEPTH || pos >= text.size()) return false;
    char c = text[pos];
    if (c == '{') return readObject(value, depth);
    if (c == '[') return readArray(value, depth);
    if (c == '"') {
      value.type = JsonValue::Type::STRING;
      return readString(value.string);
    }
    if (c == 't' || c == 'f') {
      value.type = JsonValue::Type::BOOLEAN;
      value.boolean = c == 't';
      return literal(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      value.type = JsonValue::Type::NUL;
      return literal("null");
    }
    return readNumber(value);
  }

  bool readObject(JsonValue& value, int depth) {
    value.type = JsonValue::Type::OBJECT;
    ++pos;
    skipSpace();
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return true;
    }
    for (;;) {
      skipSpace();
      std::string key;
      if (pos >= text.size() || text[pos] != '"' || !readString(key)) return false;
      skipSpace();
      if (pos >= text.size() || text[pos] != ':') return false;
      ++pos;
      skipSpace();
      value.members.emplace_back(std::move(key), JsonValue());
      if (!readValue(value.members.back().second, depth + 1)) return false;
      skipSpace();
      if (pos >= text.size()) return false;
      if (text[pos] == '}') {
        ++pos;
        return true;
      }
      if (text[pos] != ',') return false;
      ++pos;
    }
  }

  bool readArray(JsonValue& value, int depth) {
    value.type = JsonValue::Type::ARRAY;
    ++pos;
    skipSpace();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    for (;;) {
      skipSpace();
      value.items.emplace_back();
      if (!readValue(value.items.back(), depth + 1)) return false;
      skipSpace();
      if (pos >= text.size()) return false;
      if (text[pos] == ']') {
        ++pos;
        return true;
      }
      if (text[pos] != ',') return false;
      ++pos;
    }
  }

  bool readHex4(uint32_t& unit) {
    if (pos + 4 > text.size()) return false;
    unit = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      unit <<= 4;
      if (c >= '0' && c <= '9') {
        unit |= uint32_t(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        unit |= uint32_t(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        unit |= uint32_t(c - 'A' + 10);
      } else {
        return false;
      }
    }
    return true;
  }

  static void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  bool readString(std::string& out) {
    ++pos;  // opening quote
    for (;;) {
      if (pos >= text.size()) return false;
      char c = text[pos++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size()) return false;
      char e = text[pos++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t unit;
          if (!readHex4(unit)) return false;
          uint32_t cp = unit;
          if (unit >= 0xD800 && unit <= 0xDBFF) {
            // A high surrogate pairs with a following \uDC00-\uDFFF; alone it is U+FFFD.
            size_t save = pos;
            uint32_t low;
            if (text.compare(pos, 2, "\\u") == 0 && (pos += 2, readHex4(low)) && low >= 0xDC00 &&
                low <= 0xDFFF) {
              cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            } else {
              pos = save;
              cp = 0xFFFD;
            }
          } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
            cp = 0xFFFD;
          }
          appendUtf8(out, cp);
          break;
        }
        default:
          return false;
      }
    }
  }

  bool readNumber(JsonValue& value) {
    // JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    size_t start = pos;
    auto digits = [this]() {
      size_t first = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      return pos > first;
    };
    if (pos < text.size() && text[pos] == '-') ++pos;
    if (pos < text.size() && text[pos] == '0') {
      ++pos;
    } else if (!digits()) {
      return false;
    }
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      if (!digits()) return false;
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
      if (!digits()) return false;
    }
    std::string token = text.substr(start, pos - start);
    value.type = JsonValue::Type::NUMBER;
    value.number = strtod(token.c_str(), nullptr);
    return true;
  }
};

bool integerIn(const JsonValue* value, double low, double high, uint32_t& out) {
  if (value == nullptr || value->type != JsonValue::Type::NUMBER) return false;
  double n = value->number;
  if (!(n >= low && n <= high) || n != double(int64_t(n))) return false;
  out = uint32_t(n);
  return true;
}

bool isString(const JsonValue* value) {
  return value != nullptr && value->type == JsonValue::Type::STRING;
}

int signalNumber(const std::string& name) {
  if (name == "SIGINT") return SIGINT;
  if (name == "SIGTERM") return SIGTERM;
  if (name == "SIGKILL") return SIGKILL;
  return 0;
}

}  // namespace

bool parseRouteReply(const std::string& body, RouteReply& reply, std::string& error) {
  JsonValue root;
  if (!JsonReader(body).readDocument(root) || root.type != JsonValue::Type::OBJECT) {
    error = "the shim ledger's answer is not a JSON object";
    return false;
  }
  error = "the shim ledger's route has a malformed `outputs`";
  if (const JsonValue* outputs = root.find("outputs")) {
    if (outputs->type != JsonValue::Type::ARRAY) return false;
    for (const JsonValue& item : outputs->items) {
      if (item.type != JsonValue::Type::OBJECT) return false;
      ReplyOutput output;
      if (!integerIn(item.find("at_ms"), 0, 4294967295.0, output.atMs)) return false;
      const JsonValue* stream = item.find("stream");
      const JsonValue* data = item.find("data");
      if (!isString(stream) || !isString(data)) return false;
      if (stream->string == "stdout") {
        output.fd = 1;
      } else if (stream->string == "stderr") {
        output.fd = 2;
      } else {
        return false;
      }
      output.data = data->string;
      reply.outputs.push_back(std::move(output));
    }
  }

  error = "the shim ledger's route has a malformed `termination`";
  const JsonValue* termination = root.find("termination");
  if (termination == nullptr || termination->type != JsonValue::Type::OBJECT) return false;
  const JsonValue* type = termination->find("type");
  if (!isString(type)) return false;
  if (type->string == "exit") {
    uint32_t code;
    if (!integerIn(termination->find("code"), 0, 255, code)) return false;
    reply.bySignal = false;
    reply.exitCode = int(code);
  } else if (type->string == "signal") {
    const JsonValue* name = termination->find("signal");
    if (!isString(name) || signalNumber(name->string) == 0) return false;
    reply.bySignal = true;
    reply.signal = signalNumber(name->string);
  } else {
    return false;
  }
  error.clear();
  return true;
}

uint64_t waitBeforeOutputMs(const std::vector<ReplyOutput>& outputs, size_t k) {
  if (k == 0) return outputs[0].atMs;
  uint32_t previous = outputs[k - 1].atMs;
  return outputs[k].atMs > previous ? outputs[k].atMs - previous : 0;
}

}  // namespace rea::helper
