#include "evidence/canonical-json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/commitment.h"
#include "evidence/json-string.h"
#include "evidence/sha256.h"

namespace rea::evidence {
namespace {

Json parse(const std::string& text) {
  return Json::parse(text);
}

TEST(CanonicalJson, SortsKeysByUtf16CodeUnits) {
  // 😀 (D83D…) sorts before ！ (FF01) in UTF-16 order although its UTF-8 bytes are larger.
  Json value = parse(R"({"！":1,"😀":2,"b":3,"B":4,"a":5})");
  EXPECT_EQ(canonicalJson(value), R"({"B":4,"a":5,"b":3,"😀":2,"！":1})");
}

TEST(CanonicalJson, ReordersNestedObjectsAndKeepsArrayOrder) {
  Json value = parse(R"({"b":[1,"x",null,true],"a":{"d":0.5,"c":-3}})");
  EXPECT_EQ(canonicalJson(value), R"({"a":{"c":-3,"d":0.5},"b":[1,"x",null,true]})");
}

TEST(CanonicalJson, EscapesStringsLikeJcs) {
  Json value = std::string("q\" b\\ \b\t\n\f\r \x01\x1f / \x7f \xE2\x80\xA8 \xC3\xA9");
  EXPECT_EQ(canonicalJson(value),
            "\"q\\\" b\\\\ \\b\\t\\n\\f\\r \\u0001\\u001f / \x7f \xE2\x80\xA8 \xC3\xA9\"");
}

TEST(CanonicalJson, EscapesEveryByteAtEveryPlaceOfAWord) {
  // appendJsonString copies eight plain bytes at a time: each byte value at each offset of a
  // 20-byte text (inside a word, across words, in the tail) must be escaped as byte by byte.
  auto reference = [](std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
      static const char* const NAMED[] = {"\\b", "\\t", "\\n", nullptr, "\\f", "\\r"};
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c >= 0x08 && c <= 0x0d && NAMED[c - 0x08] != nullptr) {
        out += NAMED[c - 0x08];
      } else if (c < 0x20) {
        static const char HEX[] = "0123456789abcdef";
        out += "\\u00";
        out += HEX[c >> 4];
        out += HEX[c & 0xF];
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  };
  for (int byte = 0; byte < 256; ++byte) {
    for (size_t at = 0; at < 20; ++at) {
      std::string text(20, 'a');
      text[at] = static_cast<char>(byte);
      std::string out;
      appendJsonString(out, text);
      ASSERT_EQ(out, reference(text)) << byte << " at " << at;
    }
  }
}

TEST(CanonicalJson, FormatsNumbersLikeEcmaScript) {
  EXPECT_EQ(formatEcmaNumber(0.5), "0.5");
  EXPECT_EQ(formatEcmaNumber(-0.0), "0");
  EXPECT_EQ(formatEcmaNumber(1e21), "1e+21");
  EXPECT_EQ(formatEcmaNumber(1e20), "100000000000000000000");
  EXPECT_EQ(formatEcmaNumber(1e-7), "1e-7");
  EXPECT_EQ(formatEcmaNumber(1e-6), "0.000001");
  EXPECT_EQ(formatEcmaNumber(123.456), "123.456");
  EXPECT_EQ(formatEcmaNumber(-1.5e-10), "-1.5e-10");
  EXPECT_EQ(formatEcmaNumber(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(formatEcmaNumber(5e-324), "5e-324");
  EXPECT_EQ(formatEcmaNumber(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(canonicalJson(parse("[1.0, -3, 1e2, 12345678901234567890]")),
            "[1,-3,100,12345678901234567000]");
  EXPECT_EQ(canonicalJson(parse("[9007199254740993]")), "[9007199254740992]");
}

TEST(Commitment, MatchesTheGoldenHashesOfTheBaseline) {
  EXPECT_EQ(commitment(parse("{}")),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
  EXPECT_EQ(commitment(parse("[]")),
            "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945");
  EXPECT_EQ(commitment(parse(
                R"({"paths":true,"patterns":[],"pids":true,"ports":true,"time_bucket_ms":10})")),
            "60a27b2d1ee5aa73bf2e5cb2deaed2e9cc548f961ad2e3772c981828b643cc43");
  EXPECT_EQ(commitment(parse(R"({"http":[],"websocket_messages":[],"websocket_connections":[]})")),
            "8d63811296390d827ad34a30fac464e5a46b99e592ddc7698f9ed1a1f42695a5");
  EXPECT_EQ(commitment(Json{{"executable_sha256", std::string(64, '0')}}),
            "e9fb6dbb12060cb724e2c6360da0d406b8dcb13ed91769105f92efe312491fc7");
  EXPECT_EQ(commitment(parse(R"({"b":[1,"x",null,true],"a":{"d":0.5,"c":-3}})")),
            "545f87845009d4bca1828496c9229a3be9b5e9a79b46cc0b6a98ec3a5695dd9e");
  EXPECT_EQ(
      commitment(parse(
          R"([{"name":"codex","routes":[{"arguments":["--version"],"max_calls":1,"outputs":[{"at_ms":0,"data":"codex 1.2.3\n","stream":"stdout"}],"termination":{"code":0,"type":"exit"}}]}])")),
      "d858188a647bb2eb47117ecc3d491ff4c978b7364991032a4d103b81b6d2d838");
}

Json largeDocument() {
  // Well over the 64 KiB pieces: many strings needing escapes, nested objects out of order.
  Json frames = Json::array();
  for (int i = 0; i < 3000; ++i) {
    frames.push_back(Json{{"sequence", i},
                          {"data", std::to_string(i) + "\r\n\"quoted\" \u00e9\x01" +
                                       std::string(static_cast<size_t>(i % 97), 'x')},
                          {"at_ms", i * 10}});
  }
  return Json{{"zeta", std::string(100000, 'z')}, {"frames", frames}, {"alpha", nullptr}};
}

TEST(CanonicalJson, StreamsTheSameBytesInBoundedPieces) {
  Json value = largeDocument();
  std::string whole = canonicalJson(value);
  std::string streamed;
  size_t pieces = 0, largest = 0;
  canonicalJsonTo(value, [&](std::string_view piece) {
    ++pieces;
    largest = std::max(largest, piece.size());
    streamed.append(piece);
  });
  EXPECT_EQ(streamed, whole);
  EXPECT_GT(pieces, 3u);
  // A piece is the buffer limit plus at most the longest single string (the 100,000 z's).
  EXPECT_LT(largest, 64 * 1024 + 100002u);
  EXPECT_EQ(commitment(value), sha256Hex(whole));
}

TEST(CanonicalJson, SerialisesAnObjectGivenAsMembers) {
  Json value = largeDocument();
  std::vector<std::pair<std::string_view, const Json*>> members;
  for (auto it = value.begin(); it != value.end(); ++it)
    members.emplace_back(it.key(), &*it);
  std::string streamed;
  canonicalObjectTo(members, [&](std::string_view piece) { streamed.append(piece); });
  EXPECT_EQ(streamed, canonicalJson(value));
  std::string empty;
  canonicalObjectTo({}, [&](std::string_view piece) { empty.append(piece); });
  EXPECT_EQ(empty, "{}");
}

TEST(Sha256, HashesIncrementallyAndInOneShot) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 hash;
  hash.update("a");
  hash.update("bc");
  EXPECT_EQ(hash.finishHex(), sha256Hex("abc"));
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace rea::evidence
