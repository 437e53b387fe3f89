#include "supervisor/mcp/jsonrpc.h"

#include "supervisor/cli/input-file.h"

namespace rea::supervisor::jsonrpc {
namespace {

using evidence::Json;

Message invalid(Json id, int code, std::string_view message) {
  Message out;
  out.kind = Message::Kind::INVALID;
  out.error = error(id, code, message);
  out.id = std::move(id);
  return out;
}

bool validId(const Json& id) {
  return id.is_string() || id.is_number_integer();
}

}  // namespace

Message parseMessage(std::string_view line) {
  if (jsonNestingDepth(std::string(line)) > MAX_MESSAGE_DEPTH) {
    return invalid(nullptr, PARSE_ERROR, "Parse error: the message nests too deeply");
  }
  Json value = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return invalid(nullptr, PARSE_ERROR, "Parse error: not JSON");
  if (value.is_array()) {
    return invalid(nullptr, INVALID_REQUEST, "Invalid Request: batches are not supported");
  }
  if (!value.is_object()) {
    return invalid(nullptr, INVALID_REQUEST, "Invalid Request: a message is a JSON object");
  }
  Json id = nullptr;
  bool hasId = value.contains("id");
  if (hasId && validId(value["id"])) id = value["id"];
  auto version = value.find("jsonrpc");
  if (version == value.end() || *version != "2.0") {
    return invalid(id, INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"");
  }
  if (hasId && !validId(value["id"])) {
    return invalid(nullptr, INVALID_REQUEST, "Invalid Request: id must be a string or an integer");
  }

  Message out;
  out.id = id;
  auto method = value.find("method");
  if (method == value.end()) {
    // A response to a request of ours (rea sends none, so it is only classified).
    if (hasId && (value.contains("result") || value.contains("error"))) {
      out.kind = Message::Kind::RESPONSE;
      return out;
    }
    return invalid(id, INVALID_REQUEST, "Invalid Request: method is missing");
  }
  if (!method->is_string()) {
    return invalid(id, INVALID_REQUEST, "Invalid Request: method must be a string");
  }
  out.method = method->get<std::string>();
  auto params = value.find("params");
  if (params == value.end()) {
    out.params = Json::object();
  } else if (params->is_object()) {
    out.params = std::move(*params);
  } else {
    return invalid(id, INVALID_REQUEST, "Invalid Request: params must be an object");
  }
  out.kind = hasId ? Message::Kind::REQUEST : Message::Kind::NOTIFICATION;
  return out;
}

Json result(const Json& id, Json value) {
  Json out = Json::object();
  out["jsonrpc"] = "2.0";
  out["id"] = id;
  out["result"] = std::move(value);
  return out;
}

Json error(const Json& id, int code, std::string_view message, std::optional<Json> data) {
  Json body = Json::object();
  body["code"] = code;
  body["message"] = std::string(message);
  if (data) body["data"] = std::move(*data);
  Json out = Json::object();
  out["jsonrpc"] = "2.0";
  out["id"] = id;
  out["error"] = std::move(body);
  return out;
}

Json notification(std::string_view method, Json params) {
  Json out = Json::object();
  out["jsonrpc"] = "2.0";
  out["method"] = std::string(method);
  out["params"] = std::move(params);
  return out;
}

std::string serialise(const Json& message) {
  return message.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace rea::supervisor::jsonrpc
