#pragma once
// Strings in and out of Cap'n Proto messages, for both ends of every helper link. Data fields
// carry bytes that need not be UTF-8 (paths, raw output); Text fields are read with their size,
// never up to a NUL, because U+0000 is a character a hostile message may contain.
//
// Errors: none (a Reader past its message's bounds throws when it is read, before these run).

#include <capnp/blob.h>
#include <kj/common.h>

#include <string>

namespace rea::helper {

inline std::string textOf(capnp::Data::Reader data) {
  return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
}

inline std::string textOf(capnp::Text::Reader text) {
  return std::string(text.begin(), text.size());
}

inline kj::ArrayPtr<const kj::byte> bytesOf(const std::string& text) {
  // `text` as a Data field (no copy: it must outlive the message being built).
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(text.data()), text.size());
}

}  // namespace rea::helper
