#include "supervisor/cli/json-fast-parse.h"
#include "tests/json-same.h"

#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rea::supervisor {
namespace {

using evidence::Json;

// What the fast path accepts, nlohmann accepts with the same value; it may decline anything.
// Returns whether it was accepted.
bool expectAgrees(const std::string& text, size_t maxDepth = 1000) {
  auto fast = parseJsonFast(text, maxDepth);
  if (!fast) return false;
  Json slow;
  try {
    slow = Json::parse(text);
  } catch (const Json::parse_error&) {
    ADD_FAILURE() << "accepted what nlohmann rejects: " << text;
    return true;
  }
  EXPECT_TRUE(test::sameJson(*fast, slow))
      << text << " -> " << fast->dump() << " vs " << slow.dump();
  return true;
}

TEST(JsonFastParse, ReadsWhatReaWritesAsNlohmannDoes) {
  for (std::string text :
       {R"({"a":[1,-2,0,-0,true,false,null,"x\u001b[0m\"\\\/\b\f\n\r\t"],"b":{}})",
        R"( {"é":"\ud83d\ude00 ü 中","a":1,"b":2,"a":3} )", R"([18446744073709551615])",
        R"([-9223372036854775808,9223372036854775807])", R"("\u0000\u00e9\uFFFF")", "[]", "{}",
        "\"\"", "0", "[[[]]]", "\"\x7f\""}) {
    EXPECT_TRUE(parseJsonFast(text, 1000).has_value()) << text;
    expectAgrees(text);
  }
}

TEST(JsonFastParse, DeclinesWhatItLeavesToNlohmann) {
  for (std::string text : {"",
                           " ",
                           "{",
                           "[1,]",
                           "{'a':1}",
                           "\"\xff\"",
                           "\"\xc0\x80\"",
                           "\"\xed\xa0\x80\"",
                           "nul",
                           "[01]",
                           "1.5",
                           "1e3",
                           "-",
                           "18446744073709551616",
                           "-9223372036854775809",
                           "\xef\xbb\xbf{}",
                           "\"\\ud800\"",
                           "\"\\udc00\"",
                           "\"\\ud800\\u0041\"",
                           "\"a\x01\"",
                           "\"\\x\"",
                           "[1] x",
                           "\"abc",
                           "{\"a\" 1}",
                           "[true false]",
                           "\"\\u12\""}) {
    EXPECT_FALSE(parseJsonFast(text, 1000).has_value()) << text;
  }
}

TEST(JsonFastParse, DeclinesNestingBeyondTheLimit) {
  EXPECT_TRUE(parseJsonFast("[[[1]]]", 3).has_value());
  EXPECT_FALSE(parseJsonFast("[[[1]]]", 2).has_value());
  EXPECT_FALSE(parseJsonFast(R"({"a":{"b":[]}})", 2).has_value());
}

TEST(JsonFastParse, AgreesWithNlohmannOnMutatedDocuments) {
  // Random edits of a document with every kind of token: whatever the fast path accepts,
  // nlohmann must accept with the same value (the property the fallback design relies on).
  const std::string seed =
      R"({"a":[1,-2,0,true,null,"x\u001b[0m\"\\ é 中 \ud83d\ude00"],"b":{"c":"0123456789abcdef"}})";
  const std::string alphabet = "{}[]\":,\\/-+.0123456789eEtrufalsn u\x1b\x01\x7f\xc3\xa9\xed\xff";
  std::mt19937 random(20);
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = seed;
    int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t at = random() % text.size();
      char c = alphabet[random() % alphabet.size()];
      switch (random() % 3) {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(at, 1, c);
          break;
        default:
          text.erase(at, 1);
          break;
      }
    }
    accepted += expectAgrees(text);
  }
  EXPECT_GT(accepted, 2000);  // the property is tested on accepted documents
}

}  // namespace
}  // namespace rea::supervisor
