#include "supervisor/cli.h"

#include <cstdio>
#include <cstring>

namespace rea::supervisor {

int runCli(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("rea %s\n", REA_VERSION);
    return 0;
  }
  std::fprintf(stderr, "usage: rea --version\n");
  return 2;
}

}  // namespace rea::supervisor
