// Throughput of text normalisation over 10 MB of terminal-like output (the output_bytes cap),
// whole-text and streamed in 4 KiB reads. Prints MB/s (median of RUNS runs, default 5); run from
// bench/run.sh or directly. Usage: normalise-bench [RUNS]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/support/arguments.h"

#include "evidence/chunk-normaliser.h"
#include "evidence/normalise.h"

namespace {

using rea::evidence::ChunkNormaliser;
using rea::evidence::NormaliseContext;

std::string sampleOutput(size_t bytes) {
  static const char* LINES[] = {
      "GET http://127.0.0.1:43123/api/v1/items?id=4242 -> 200 in 12ms\r\n",
      "[12:30:45] worker 4242 started, rc=127, token hunter2\r\n",
      "compiling /proj/src/main.c++ into /tmp/rea-abc/out/main.o\r\n",
      "\x1b[1;32mok\x1b[0m 1234567 bytes \xE9\x9B\xAA\xE9\x9B\xAA listening on [::1]:8080\r\n",
      "plain text line without anything to replace at all, just words\r\n",
  };
  std::mt19937 random(7);
  std::uniform_int_distribution<size_t> pick(0, sizeof(LINES) / sizeof(LINES[0]) - 1);
  std::string text;
  while (text.size() < bytes)
    text += LINES[pick(random)];
  return text;
}

template <typename F>
double medianSeconds(int runs, F&& f) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "normalise-bench [runs]";
  auto arguments = rea::bench::parseArguments(argc, argv, usage);
  rea::bench::rejectFlags(arguments, usage);
  int runs = arguments.runs;
  NormaliseContext context;
  context.secrets = {"hunter2", "s3cr3t-token"};
  context.sensitiveInputs = {"correct horse\r"};
  context.temporaryRoot = "/tmp/rea-abc";
  context.workingDirectory = "/proj";
  context.executable = "/proj/bin/tool";
  context.filesystemRoots = {"/data", "/srv"};
  context.pids = {4242};
  context.harnessPorts = {43123, 43124};
  context.patterns = {{"v1", "vX"}, {"ms", "$&"}};
  std::string text = sampleOutput(10'000'000);
  double mb = text.size() / 1e6;

  std::printf("normalise-bench: 10 MB of terminal-like output, median of %d runs\n", runs);
  size_t wholeSize = 0;
  double whole =
      medianSeconds(runs, [&]() { wholeSize = rea::evidence::normalise(text, context).size(); });
  std::printf("normalise (whole)      %6.1f MB/s  (%zu -> %zu bytes)\n", mb / whole, text.size(),
              wholeSize);

  size_t streamedSize = 0;
  double streamed = medianSeconds(runs, [&]() {
    streamedSize = 0;
    ChunkNormaliser normaliser(context);
    for (size_t at = 0; at < text.size(); at += 4096) {
      streamedSize += normaliser.push(std::string_view(text).substr(at, 4096)).size();
    }
    streamedSize += normaliser.flush().size();
  });
  std::printf("ChunkNormaliser (4 KiB) %6.1f MB/s  (%zu bytes)\n", mb / streamed, streamedSize);
  if (streamedSize != wholeSize) {
    std::fprintf(stderr, "normalise-bench: streamed and whole-text results differ in size\n");
    return 1;
  }
  return 0;
}
