#include "supervisor/cli/input-file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "supervisor/run/temp-root.h"

namespace rea::supervisor {
namespace {

struct Scratch {
  std::string dir;
  Scratch() {
    char pattern[] = "/tmp/rea-input-test-XXXXXX";
    dir = mkdtemp(pattern);
  }
  ~Scratch() { removeTree(dir); }
  std::string write(const std::string& name, const std::string& content) {
    std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }
};

std::string category(const InputFile& input) {
  return input.error ? input.error->toJson()["category"].get<std::string>() : "";
}

TEST(InputFile, ReadsAJsonDocument) {
  Scratch s;
  auto input = readJsonFile(s.write("ok.json", R"({"a":[1,2,{"b":"é"}]})"));
  ASSERT_TRUE(input.value.has_value());
  EXPECT_EQ((*input.value)["a"][2]["b"], "é");
}

TEST(InputFile, AMissingFileOrDirectoryIsUnreadable) {
  Scratch s;
  EXPECT_EQ(category(readJsonFile(s.dir + "/missing.json")), "invalid_input");
  EXPECT_EQ(category(readJsonFile(s.dir)), "invalid_input");
}

TEST(InputFile, RejectsMalformedJsonAndInvalidUtf8) {
  Scratch s;
  for (std::string text : {"", "{", "{\"a\":1}}", "[1,]", "{'a':1}", "\"\xff\"", "nul"}) {
    auto input = readJsonFile(s.write("bad.json", text));
    EXPECT_FALSE(input.value.has_value()) << text;
    EXPECT_EQ(category(input), "invalid_input") << text;
  }
}

TEST(InputFile, RejectsDeepNestingWithoutCrashing) {
  Scratch s;
  std::string deep(200000, '[');
  auto input = readJsonFile(s.write("deep.json", deep + std::string(200000, ']')));
  EXPECT_FALSE(input.value.has_value());
  EXPECT_EQ(category(input), "invalid_input");
  EXPECT_EQ(jsonNestingDepth(R"({"a":"[[[[","b":[[1]]})"), 3u);
}

// A document of `frames` elements of ~1 KiB each, ending with `tail` inside the outer object.
std::string largeDocument(size_t frames, const std::string& tail) {
  std::string text = "{\"frames\":[";
  for (size_t i = 0; i < frames; ++i) {
    if (i > 0) text += ",";
    text += "{\"sequence\":" + std::to_string(i) + ",\"data\":\"" +
            std::string(1000, 'a' + i % 26) + "\\u001b[0m\"}";
  }
  return text + "]" + tail + "}";
}

TEST(InputFile, ALargeFileReadsTheSameWhileItsTextIsReleased) {
  // Over 8 MiB: read into pages the fast parser gives back as it goes (input-file.c++).
  Scratch s;
  std::string text = largeDocument(12000, ",\"end\":true");
  ASSERT_GT(text.size(), 8u << 20);
  auto input = readJsonFile(s.write("large.json", text));
  ASSERT_TRUE(input.value.has_value());
  EXPECT_EQ(*input.value, evidence::Json::parse(text));
}

TEST(InputFile, ALargeFileTheFastPathDeclinesIsReadAgain) {
  // The fast parser declines a fraction, at the end, after it released most of the text: the
  // document is read again for nlohmann, whose value (and whose errors) count.
  Scratch s;
  std::string text = largeDocument(12000, ",\"ratio\":0.5");
  auto input = readJsonFile(s.write("fraction.json", text));
  ASSERT_TRUE(input.value.has_value());
  EXPECT_EQ((*input.value)["ratio"], 0.5);
  EXPECT_EQ((*input.value)["frames"][11999]["sequence"], 11999);
  EXPECT_EQ(*input.value, evidence::Json::parse(text));

  std::string broken = largeDocument(12000, ",\"x\":\n  nul");
  auto refused = readJsonFile(s.write("broken.json", broken));
  EXPECT_FALSE(refused.value.has_value());
  EXPECT_EQ(category(refused), "invalid_input");
  // Where nlohmann found it: the last line (the whole text before it is one line).
  EXPECT_NE(refused.error->toJson().dump().find("line 2"), std::string::npos)
      << refused.error->toJson().dump();
}

TEST(InputFile, RejectsFilesOver64MiB) {
  Scratch s;
  std::string path = s.dir + "/big.json";
  {
    std::ofstream out(path);
    out << "\"";
  }
  ASSERT_EQ(truncate(path.c_str(), 64 * 1024 * 1024 + 1), 0);
  EXPECT_EQ(category(readJsonFile(path)), "truncated");
}

}  // namespace
}  // namespace rea::supervisor
