#include "helpers/shim/shim-invocation.h"

#include <nlohmann/json.hpp>

#include "evidence/utf.h"

namespace rea::helper {

std::optional<ShimInvocation> parseShimInvocation(std::string_view body) {
  if (body.size() > SHIM_REQUEST_BODY_LIMIT) return std::nullopt;
  std::string text = evidence::sanitizeUtf8(body);
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object()) return std::nullopt;

  auto command = value.find("command");
  auto arguments = value.find("arguments");
  auto workingDirectory = value.find("working_directory");
  if (command == value.end() || !command->is_string()) return std::nullopt;
  if (arguments == value.end() || !arguments->is_array()) return std::nullopt;
  if (workingDirectory == value.end() || !workingDirectory->is_string()) return std::nullopt;

  ShimInvocation invocation;
  invocation.command = command->get<std::string>();
  invocation.workingDirectory = workingDirectory->get<std::string>();
  invocation.arguments.reserve(arguments->size());
  for (const auto& argument : *arguments) {
    if (!argument.is_string()) return std::nullopt;
    invocation.arguments.push_back(argument.get<std::string>());
  }
  return invocation;
}

}  // namespace rea::helper
