#pragma once
// The JSON Schemas `rea mcp` gives its tools (MCP `inputSchema` / `outputSchema`), made from the
// files of schema/json/ (embedded at build time by embed-schemas.cmake), so the tools and the
// documented file formats cannot drift apart. A tool schema must stand alone (a client cannot
// fetch `https://rea.invalid/...`), so a schema that refers to another file gets that file
// bundled under its own `$defs` and the reference rewritten to point there.
//
// Errors: std::logic_error when an embedded schema is missing or not JSON (a build defect).

#include <string>
#include <string_view>
#include <vector>

#include "evidence/json.h"

namespace rea::supervisor {

struct EmbeddedSchema {
  const char* name;  // e.g. "scenario.schema.json"
  const char* text;
};

const std::vector<EmbeddedSchema>& embeddedSchemas();
// Every schema/json/*.schema.json (generated source).

evidence::Json bundledSchema(std::string_view name);
// The schema `name` standing alone: `$id` dropped, each other schema it refers to (directly or
// not) copied under `$defs["<file>"]` without its `$schema`/`$id`, and every `$ref` rewritten
// to a pointer into this document.

}  // namespace rea::supervisor
