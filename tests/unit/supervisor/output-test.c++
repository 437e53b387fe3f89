#include "supervisor/cli/output.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rea::supervisor {
namespace {

using evidence::Json;

// Runs `print` with stdout redirected to a temporary file; returns what it wrote.
template <typename Print>
std::string captureStdout(Print&& print, int& status) {
  FILE* file = tmpfile();
  EXPECT_NE(file, nullptr);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  dup2(fileno(file), STDOUT_FILENO);
  status = print();
  dup2(saved, STDOUT_FILENO);
  close(saved);
  std::string text;
  rewind(file);
  char buffer[65536];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), file)) > 0)
    text.append(buffer, n);
  fclose(file);
  return text;
}

Json largeDocument() {
  // Several 64 KiB write pieces, strings that need escaping, nested members in insertion order.
  Json frames = Json::array();
  for (int i = 0; i < 5000; ++i) {
    frames.push_back(Json{{"sequence", i},
                          {"at_ms", i * 10},
                          {"data", std::to_string(i) + "\r\n\"é\"\x1b[0m" + std::string(40, 'x')}});
  }
  return Json{{"schema_version", 2}, {"frames", frames}, {"empty", Json::object()}};
}

TEST(PrintJson, StreamsExactlyWhatDumpWouldPrint) {
  Json value = largeDocument();
  int status = -1;
  std::string compact = captureStdout([&]() { return printJson(value, false); }, status);
  EXPECT_EQ(status, 0);
  EXPECT_GT(compact.size(), 4 * 65536u);
  EXPECT_EQ(compact, value.dump() + "\n");
  std::string pretty = captureStdout([&]() { return printJson(value, true); }, status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(pretty, value.dump(2) + "\n");
}

TEST(PrintJson, PrintsNothingForADocumentThatCannotBeSerialised) {
  // Not UTF-8 deep inside: refused before the first byte, never half a document.
  Json value = largeDocument();
  value["frames"][4000]["data"] = std::string("bad \xff byte");
  int status = -1;
  std::string text = captureStdout([&]() { return printJson(value, false); }, status);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(text, "");
  Json badKey = Json::object();
  badKey[std::string("k\xc3")] = 1;
  text = captureStdout([&]() { return printJson(badKey, false); }, status);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(text, "");
}

TEST(PrintJson, ReportsAStdoutThatCannotBeWritten) {
  int status = -1;
  std::string text = captureStdout(
      [&]() {
        int readOnly = open("/dev/null", O_RDONLY);
        dup2(readOnly, STDOUT_FILENO);
        close(readOnly);
        return printJson(largeDocument(), false);
      },
      status);
  EXPECT_EQ(status, 1);
}

}  // namespace
}  // namespace rea::supervisor
