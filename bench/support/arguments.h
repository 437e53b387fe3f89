#pragma once
// The command line every benchmark shares: `X-bench [RUNS] [flags...]`. bench/run.sh passes the
// run count (the median is taken over that many runs) as the first positional argument; a
// benchmark's own flags follow it. Header-only, so no benchmark needs another library for it.
//
// Errors: a first argument that is neither a positive count nor a flag prints `usage` and exits 2.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace rea::bench {

struct Arguments {
  int runs = 5;
  std::vector<std::string> flags;  // everything after the run count, in order
};

inline Arguments parseArguments(int argc, char** argv, const char* usage) {
  Arguments parsed;
  int next = 1;
  if (argc > 1 && argv[1][0] != '-') {
    char* end = nullptr;
    long runs = std::strtol(argv[1], &end, 10);
    if (*end != '\0' || runs < 1 || runs > 1000) {
      std::fprintf(stderr, "usage: %s\n", usage);
      std::exit(2);
    }
    parsed.runs = int(runs);
    next = 2;
  }
  for (int i = next; i < argc; ++i)
    parsed.flags.push_back(argv[i]);
  return parsed;
}

inline void rejectFlags(const Arguments& arguments, const char* usage) {
  // For a benchmark that has no flags of its own.
  if (!arguments.flags.empty()) {
    std::fprintf(stderr, "usage: %s\n", usage);
    std::exit(2);
  }
}

}  // namespace rea::bench
