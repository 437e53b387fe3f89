// `rea-pty --standalone request.json`: the real binary, its JSON lines.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using Json = nlohmann::json;

std::vector<Json> runStandalone(const std::string& request, int* status) {
  char path[] = "/tmp/rea-pty-standalone-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, request.data(), request.size()), ssize_t(request.size()));
  close(fd);
  std::string command = std::string(REA_BINARY_DIR "/bin/rea-pty --standalone ") + path;
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::vector<Json> lines;
  char* line = nullptr;
  size_t capacity = 0;
  while (getline(&line, &capacity, pipe) > 0)
    lines.push_back(Json::parse(line));
  free(line);
  *status = pclose(pipe);
  unlink(path);
  return lines;
}

TEST(PtyStandalone, PrintsTheJobsEventsAsJsonLines) {
  int status = -1;
  auto lines = runStandalone(R"({
    "executable": "/bin/sh",
    "arguments": ["-c", "read x; echo got:$x"],
    "workingDirectory": "/",
    "environment": ["PATH=/usr/bin:/bin"],
    "events": [{"atMs": 100, "input": "yes\r"}, {"atMs": 60000, "signal": 15}]
  })",
                             &status);
  EXPECT_EQ(status, 0);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines.front()["event"], "spawned");
  EXPECT_GT(lines.front()["rootPid"].get<int>(), 0);
  std::string output;
  std::vector<std::string> kinds;
  for (auto& line : lines) {
    kinds.push_back(line["event"]);
    if (line["event"] == "output") output += line["data"].get<std::string>();
  }
  EXPECT_EQ(output, "yes\r\ngot:yes\r\n");
  auto exited = std::find(kinds.begin(), kinds.end(), "exited") - kinds.begin();
  ASSERT_LT(size_t(exited), lines.size());
  EXPECT_EQ(lines[exited]["code"], 0);
  EXPECT_TRUE(lines[exited]["signal"].is_null());
  EXPECT_EQ(lines[exited]["reason"], "exited");
  EXPECT_EQ(lines[exited + 1]["event"], "dispatched");
  EXPECT_EQ(lines[exited + 1]["eventIndex"], 1);
  EXPECT_EQ(lines[exited + 1]["outcome"], "targetExited");
  // One rendered frame per output chunk (B §6.11); the last shows the screen.
  auto count = [&](const char* kind) { return std::count(kinds.begin(), kinds.end(), kind); };
  EXPECT_EQ(count("rendered"), count("output"));
  auto lastFrame = std::find(kinds.rbegin(), kinds.rend(), "rendered");
  ASSERT_NE(lastFrame, kinds.rend());
  const Json& frame = lines[kinds.rend() - lastFrame - 1];
  EXPECT_EQ(frame["lines"][1], "got:yes" + std::string(73, ' '));
  EXPECT_EQ(frame["activeBuffer"], "normal");
  EXPECT_EQ(lines.back(), Json({{"event", "done"},
                                {"truncated", false},
                                {"droppedCount", 0},
                                {"renderTruncated", false},
                                {"renderedFrames", count("rendered")}}));
}

TEST(PtyStandalone, AMalformedRequestIsAUsageError) {
  int status = -1;
  auto lines = runStandalone("{not json", &status);
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

TEST(PtyStandalone, ARequestTheJobRefusesExitsOne) {
  int status = -1;
  auto lines = runStandalone(R"({"executable": "/bin/true", "columns": 0})", &status);
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
}

}  // namespace
