#pragma once
// One JSON string literal, escaped as RFC 8785 (canonical-json.h) writes it: `"` and `\`
// escaped; \b \t \n \f \r; other bytes below 0x20 as \u00xx (lowercase hex); every other byte
// as it is. Header-only and free of exceptions and libraries, so that the shim client
// (helpers/shim/client/, built without exceptions and without rea-evidence) writes its JSON
// exactly as canonical JSON does.
//
// Errors: none. The bytes are not checked: ill-formed UTF-8 stays ill-formed (callers that take
// arbitrary bytes sanitise them first, utf.h).

#include <string>
#include <string_view>

namespace rea::evidence {

inline void appendJsonString(std::string& out, std::string_view text) {
  static const char HEX[] = "0123456789abcdef";
  out.push_back('"');
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(HEX[c >> 4]);
          out.push_back(HEX[c & 0xF]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
}
// Appends `text` to `out` as a JSON string literal (quotes included).

}  // namespace rea::evidence
