// The pure parts of `rea mcp`: the JSON-RPC layer, the ledger's bounds, the tool schemas made
// from schema/json/.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "supervisor/mcp/jsonrpc.h"
#include "supervisor/mcp/mcp-ledger.h"
#include "supervisor/mcp/mcp-schemas.h"
#include "supervisor/mcp/mcp-tools.h"

namespace rea::supervisor {
namespace {

using evidence::Json;
using jsonrpc::Message;
using jsonrpc::parseMessage;

TEST(JsonRpc, ClassifiesRequestsNotificationsAndResponses) {
  auto request = parseMessage(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  EXPECT_EQ(request.kind, Message::Kind::REQUEST);
  EXPECT_EQ(request.id, 7);
  EXPECT_EQ(request.method, "ping");
  EXPECT_EQ(request.params, Json::object());

  auto named = parseMessage(R"({"jsonrpc":"2.0","id":"a","method":"x","params":{"k":1}})");
  EXPECT_EQ(named.kind, Message::Kind::REQUEST);
  EXPECT_EQ(named.id, "a");
  EXPECT_EQ(named.params["k"], 1);

  auto note = parseMessage(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(note.kind, Message::Kind::NOTIFICATION);

  auto response = parseMessage(R"({"jsonrpc":"2.0","id":3,"result":{}})");
  EXPECT_EQ(response.kind, Message::Kind::RESPONSE);
}

void expectInvalid(const std::string& line, int code, const Json& id = nullptr) {
  auto message = parseMessage(line);
  ASSERT_EQ(message.kind, Message::Kind::INVALID) << line;
  EXPECT_EQ(message.error["jsonrpc"], "2.0") << line;
  EXPECT_EQ(message.error["id"], id) << line;
  EXPECT_EQ(message.error["error"]["code"], code) << line;
  EXPECT_TRUE(message.error["error"]["message"].is_string()) << line;
}

TEST(JsonRpc, AnswersMalformedMessagesWithTheProtocolErrors) {
  expectInvalid("{not json", jsonrpc::PARSE_ERROR);
  expectInvalid(std::string(2000, '[') + std::string(2000, ']'), jsonrpc::PARSE_ERROR);
  expectInvalid("[]", jsonrpc::INVALID_REQUEST);
  expectInvalid(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", jsonrpc::INVALID_REQUEST);
  expectInvalid("42", jsonrpc::INVALID_REQUEST);
  expectInvalid(R"({"id":1,"method":"ping"})", jsonrpc::INVALID_REQUEST, 1);
  expectInvalid(R"({"jsonrpc":"1.0","id":1,"method":"ping"})", jsonrpc::INVALID_REQUEST, 1);
  expectInvalid(R"({"jsonrpc":"2.0","id":1,"method":5})", jsonrpc::INVALID_REQUEST, 1);
  expectInvalid(R"({"jsonrpc":"2.0","id":"x"})", jsonrpc::INVALID_REQUEST, "x");
  expectInvalid(R"({"jsonrpc":"2.0","id":null,"method":"ping"})", jsonrpc::INVALID_REQUEST);
  expectInvalid(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", jsonrpc::INVALID_REQUEST);
  expectInvalid(R"({"jsonrpc":"2.0","id":{},"method":"ping"})", jsonrpc::INVALID_REQUEST);
  expectInvalid(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":[1]})",
                jsonrpc::INVALID_REQUEST, 2);
}

TEST(JsonRpc, SerialisesOneLineEvenForInvalidUtf8) {
  Json message = jsonrpc::result(1, Json{{"text", std::string("a\nb\xff")}});
  std::string line = jsonrpc::serialise(message);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  auto back = Json::parse(line);
  EXPECT_EQ(back["result"]["text"], "a\nb\xef\xbf\xbd");
  EXPECT_EQ(jsonrpc::error(2, -32601, "nope", Json{{"x", 1}})["error"]["data"]["x"], 1);
  EXPECT_EQ(jsonrpc::notification("n", Json::object())["method"], "n");
}

LedgerEntry entry(const std::string& id, size_t bytes) {
  LedgerEntry out;
  out.evidenceId = id;
  out.bytes = bytes;
  out.evidence = std::make_shared<const Json>(Json::object());
  return out;
}

TEST(McpLedger, EvictsTheOldestBeyondEitherBound) {
  McpLedger ledger(3, 100);
  EXPECT_TRUE(ledger.add(entry("a", 10)).evicted.empty());
  EXPECT_TRUE(ledger.add(entry("b", 10)).evicted.empty());
  EXPECT_TRUE(ledger.add(entry("c", 10)).evicted.empty());
  auto byCount = ledger.add(entry("d", 10));
  EXPECT_TRUE(byCount.stored);
  EXPECT_EQ(byCount.evicted, std::vector<std::string>{"a"});
  EXPECT_EQ(ledger.find("a"), nullptr);
  ASSERT_NE(ledger.find("d"), nullptr);

  auto byBytes = ledger.add(entry("e", 85));  // b, c, d hold 30: two must go
  EXPECT_EQ(byBytes.evicted, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger.totalBytes(), 95u);

  auto tooLarge = ledger.add(entry("f", 101));
  EXPECT_FALSE(tooLarge.stored);
  EXPECT_TRUE(tooLarge.evicted.empty());
  EXPECT_EQ(ledger.find("f"), nullptr);
  EXPECT_EQ(ledger.size(), 2u);

  auto again = ledger.add(entry("d", 5));  // the same id replaces, not duplicates
  EXPECT_TRUE(again.evicted.empty());
  EXPECT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger.totalBytes(), 90u);
}

TEST(McpLedger, TheCaptureResultSaysWhatHappened) {
  LedgerAdmission admission;
  admission.stored = true;
  admission.evicted = {"ev_old1", "ev_old2"};
  auto notes = ledgerNotes("ev_new", admission);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[0].find("Stored"), std::string::npos);
  EXPECT_NE(notes[0].find("ev_new"), std::string::npos);
  EXPECT_NE(notes[1].find("Evicted"), std::string::npos);
  EXPECT_NE(notes[1].find("ev_old1"), std::string::npos);
  EXPECT_NE(notes[2].find("ev_old2"), std::string::npos);
  auto tooLarge = ledgerNotes("ev_big", LedgerAdmission{});
  ASSERT_EQ(tooLarge.size(), 1u);
  EXPECT_NE(tooLarge[0].find("Not stored"), std::string::npos);
}

TEST(McpLedger, DefaultBoundsAreTheDocumentedOnes) {
  EXPECT_EQ(MCP_LEDGER_CAPTURES, 64u);
  EXPECT_EQ(MCP_LEDGER_BYTES, 256u * 1024 * 1024);
}

// Every $ref of a bundle points into the bundle itself, at something that exists.
void expectSelfContained(const Json& root) {
  std::function<void(const Json&)> walk = [&](const Json& node) {
    if (node.is_array()) {
      for (const auto& item : node)
        walk(item);
    } else if (node.is_object()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (it.key() == "$ref" && it.value().is_string()) {
          std::string ref = it.value();
          ASSERT_EQ(ref.rfind("#", 0), 0u) << ref;
          Json::json_pointer pointer(ref.substr(1));
          EXPECT_TRUE(root.contains(pointer)) << ref;
        } else {
          walk(it.value());
        }
      }
    }
  };
  walk(root);
}

TEST(McpSchemas, EmbedsEverySchemaOfSchemaJson) {
  std::vector<std::string> names;
  for (const auto& schema : embeddedSchemas())
    names.push_back(schema.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "capture-batch-results.schema.json", "capture-evidence.schema.json",
                       "compare-batch-summary.schema.json", "comparison-evidence.schema.json",
                       "scenario.schema.json"}));
}

TEST(McpSchemas, BundlesStandAlone) {
  for (const char* name : {"scenario.schema.json", "capture-evidence.schema.json",
                           "comparison-evidence.schema.json"}) {
    SCOPED_TRACE(name);
    Json schema = bundledSchema(name);
    EXPECT_FALSE(schema.contains("$id"));
    EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    expectSelfContained(schema);
  }
  Json comparison = bundledSchema("comparison-evidence.schema.json");
  EXPECT_TRUE(comparison["$defs"].contains("capture-evidence.schema.json"));
  EXPECT_TRUE(comparison["$defs"].contains("scenario.schema.json"));
  EXPECT_FALSE(comparison["$defs"]["scenario.schema.json"].contains("$schema"));
}

TEST(McpTools, ListsBothToolsWithObjectSchemas) {
  Json tools = mcpTools();
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0]["name"], CAPTURE_TOOL);
  EXPECT_EQ(tools[1]["name"], COMPARE_TOOL);
  for (const auto& tool : tools) {
    EXPECT_EQ(tool["inputSchema"]["type"], "object");
    EXPECT_EQ(tool["outputSchema"]["type"], "object");
    EXPECT_TRUE(tool["description"].is_string());
  }
  EXPECT_EQ(tools[1]["inputSchema"]["required"], (Json{"left_evidence_id", "right_evidence_id"}));
}

TEST(McpTools, RefusesBadComparisonArgumentsAndUnknownIds) {
  McpLedger ledger;
  Json bad = compareProcessCaptures(Json{{"left_evidence_id", 5}, {"extra", true}}, ledger, 0);
  EXPECT_EQ(bad["isError"], true);
  EXPECT_EQ(bad["structuredContent"]["error"]["category"], "invalid_input");
  std::string text = bad["content"][0]["text"];
  EXPECT_NE(text.find("left_evidence_id: must be a string"), std::string::npos) << text;
  EXPECT_NE(text.find("extra: is not an argument"), std::string::npos) << text;
  EXPECT_NE(text.find("right_evidence_id: is required"), std::string::npos) << text;

  Json unknown = compareProcessCaptures(
      Json{{"left_evidence_id", "ev_x"}, {"right_evidence_id", "ev_y"}}, ledger, 0);
  EXPECT_EQ(unknown["isError"], true);
  EXPECT_EQ(unknown["structuredContent"]["error"]["code"], "integrity_mismatch");
  EXPECT_EQ(unknown["structuredContent"]["error"]["category"], "integrity_mismatch");
}

}  // namespace
}  // namespace rea::supervisor
