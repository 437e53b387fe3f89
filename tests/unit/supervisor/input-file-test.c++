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
