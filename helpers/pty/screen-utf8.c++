#include "helpers/pty/screen-utf8.h"

namespace rea::helper {

std::string replaceTruncatedUtf8(std::string_view bytes, size_t& offset) {
  std::string out;
  out.reserve(bytes.size() + 8);
  size_t mapped = std::string_view::npos;
  size_t i = 0;
  while (i < bytes.size()) {
    size_t length = utf8SequenceLength(static_cast<unsigned char>(bytes[i]));
    size_t have = 1;
    while (have < length && i + have < bytes.size() &&
           isUtf8Continuation(static_cast<unsigned char>(bytes[i + have]))) {
      have++;
    }
    bool inside = offset != std::string_view::npos && mapped == std::string_view::npos &&
                  offset < i + (length == 0 ? 1 : have);
    if (length != 0 && have < length && i + have < bytes.size()) {
      if (inside) mapped = out.size();
      out += "\xef\xbf\xbd";
    } else {
      if (inside) mapped = out.size() + (offset - i);
      out.append(bytes.substr(i, length == 0 ? 1 : have));
    }
    i += length == 0 ? 1 : have;
  }
  if (offset != std::string_view::npos) {
    offset = mapped == std::string_view::npos ? out.size() : mapped;
  }
  return out;
}

}  // namespace rea::helper
