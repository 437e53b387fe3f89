#include "supervisor/mcp/mcp-schemas.h"

#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace rea::supervisor {
namespace {

using evidence::Json;

Json parsedSchema(std::string_view name) {
  for (const auto& schema : embeddedSchemas()) {
    if (name == schema.name) return Json::parse(schema.text);
  }
  throw std::logic_error("no embedded schema " + std::string(name));
}

// `home` is the `$defs` key the document is copied under, or "" for the bundle's root.
void rewriteReferences(Json& node, const std::string& home, std::string_view root,
                       std::set<std::string>& needed) {
  if (node.is_array()) {
    for (auto& item : node)
      rewriteReferences(item, home, root, needed);
    return;
  }
  if (!node.is_object()) return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it.key() == "$ref" && it.value().is_string()) {
      std::string ref = it.value().get<std::string>();
      size_t hash = ref.find('#');
      std::string file = hash == std::string::npos ? ref : ref.substr(0, hash);
      std::string fragment = hash == std::string::npos ? "" : ref.substr(hash + 1);
      if (file == root) file.clear();  // the bundle's root refers to itself by name
      std::string target = file.empty() ? home : file;
      if (!file.empty()) needed.insert(file);
      it.value() = target.empty() ? "#" + fragment : "#/$defs/" + target + fragment;
    } else {
      rewriteReferences(it.value(), home, root, needed);
    }
  }
}

}  // namespace

Json bundledSchema(std::string_view name) {
  Json root = parsedSchema(name);
  root.erase("$id");
  std::set<std::string> needed;
  rewriteReferences(root, "", name, needed);
  std::set<std::string> bundled;
  while (true) {
    std::string next;
    for (const auto& file : needed) {
      if (bundled.count(file) == 0) {
        next = file;
        break;
      }
    }
    if (next.empty()) break;
    bundled.insert(next);
    Json document = parsedSchema(next);
    document.erase("$schema");
    document.erase("$id");
    rewriteReferences(document, next, name, needed);
    if (!root.contains("$defs")) root["$defs"] = Json::object();
    root["$defs"][next] = std::move(document);
  }
  return root;
}

}  // namespace rea::supervisor
